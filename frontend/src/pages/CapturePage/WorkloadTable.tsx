import { captureQueriesPath } from '../../api/captures'
import type { Digest, Workload } from '../../client'
import { useCollapsedRows } from '../../components/CollapsedRows'
import { formatMs } from '../../format'
import { EmptyRow, num, TableHead } from '../../components/Table/Table'

const SOURCES: Record<string, string> = {
  sample: 'sample text',
  history: 'from statement history',
  digest_text: 'digest text only (not replayable)',
}

/** The text a digest's row shows and where it came from: a digest text whose placeholders the
 * capture bound to values of its columns (`bound_text`, captures/digest_values.py) shows that text,
 * the one a replay runs, and says so; any other its own text and its source (SOURCES). */
function digestText(digest: Digest): { text: string; source: string } {
  if (digest.text_source === 'digest_text' && digest.bound_text)
    return { text: digest.bound_text, source: 'digest text, values bound' }
  return { text: digest.text, source: SOURCES[digest.text_source] ?? digest.text_source }
}

/** The heading of a workload problem: empty, some digest a replay cannot run, or (every digest
 * replayable, a digest text bound) a note of what the capture still lacks. */
function problemHeading(workload: Workload): string {
  if (workload.empty) return 'Empty workload'
  const all = workload.replayable != null && workload.replayable >= workload.digests.length
  return all ? 'Every digest replayable, but' : 'Not all replayable'
}

/** The captured statement digests, most executed first (collapsed past 20 rows): text (and where it
 * came from), executions and weight, latency (ms: avg, p95/p99 where the server has them, max),
 * rows; the queries.sql a replay takes (not on a shared page: `queriesLink` false); why it is empty
 * or not all replayable, each with its fix; how many of the lab's own statements were left out,
 * with their digest texts. */
export function WorkloadTable({
  captureId,
  workload,
  queriesLink = true,
}: {
  captureId: number
  workload: Workload
  queriesLink?: boolean
}) {
  const { shown, toggle } = useCollapsedRows(workload.digests, 'workload-more')
  return (
    <section id="capture-workload" data-testid="capture-workload">
      <h2>Workload</h2>
      <p className="muted">
        {workload.digests.length} digests (at most {workload.limit}
        {workload.replayable != null ? `, ${workload.replayable} replayable` : ''}), {workload.executions.toLocaleString()} executions
        {workload.quantiles ? ', p95/p99 from the server' : ', no quantiles on this server'}
        {workload.samples ? '' : ', no sample texts on this server (history or digest text instead)'}.{' '}
        {queriesLink && (
          <>
            <a href={captureQueriesPath(captureId)} data-testid="capture-queries-sql" download>
              queries.sql
            </a>{' '}
            (the replayable texts, most executed first, each with its weight: the queries of a replay).
          </>
        )}
      </p>
      {(workload.lab_digests ?? 0) > 0 && (
        <details className="small" data-testid="capture-lab-statements">
          <summary>
            {workload.lab_digests} digests ({(workload.lab_executions ?? 0).toLocaleString()} executions) of the lab's
            own statements left out (its reads, probes and dump client; matched by their digest text)
          </summary>
          <ul className="mono">
            {(workload.lab_texts ?? []).map((text, i) => (
              <li key={i}>{text}</li>
            ))}
          </ul>
        </details>
      )}
      {(workload.problems ?? []).map((problem) => (
        <p className="notice small" key={problem.code} data-testid="capture-workload-problem">
          <strong>{problemHeading(workload)}:</strong> {problem.words}.{' '}
          <strong>Fix:</strong> <span className="mono">{problem.fix}</span>
        </p>
      ))}
      {workload.error && (
        <p className="notice" data-testid="capture-workload-error">
          Workload not fully read: {workload.error}
        </p>
      )}
      <table className="data-table" data-testid="workload-table">
        <TableHead
          columns={[
            'Statement', 'Schema', num('Executions'), num('Weight'), num('Avg ms'), num('p95 ms'), num('p99 ms'),
            num('Max ms'), num('Rows sent'),
          ]}
        />
        <tbody>
          {shown.map((d, i) => {
            const { text, source } = digestText(d)
            return (
              <tr key={d.digest ?? i} data-testid="capture-digest">
                <td>
                  <code style={{ wordBreak: 'break-all' }} title={text === d.text ? undefined : d.text}>
                    {text}
                  </code>
                  <div className="muted small" data-testid="capture-digest-source">
                    {source}
                    {d.truncated && ', cut short'}
                  </div>
                </td>
                <td className="mono">{d.schema_name ?? '-'}</td>
                <td className="num">{d.executions.toLocaleString()}</td>
                <td className="num">{(d.weight * 100).toFixed(1)}%</td>
                <td className="num">{formatMs(d.avg_s)}</td>
                <td className="num">{formatMs(d.p95_s)}</td>
                <td className="num">{formatMs(d.p99_s)}</td>
                <td className="num">{formatMs(d.max_s)}</td>
                <td className="num">{d.rows_sent?.toLocaleString() ?? '-'}</td>
              </tr>
            )
          })}
          {workload.digests.length === 0 && (
            <EmptyRow columns={9}>No statement digest captured.</EmptyRow>
          )}
        </tbody>
      </table>
      {toggle}
    </section>
  )
}
