import { useQuery } from '@tanstack/react-query'
import type { RunContext, VariableDiff } from '../../../client'
import { useCollapsedRows } from '../../../components/CollapsedRows'
import { ErrorBox } from '../../../components/ErrorBox'
import { runContextQuery, runVariablesDiffQuery } from '../../../queries/runs'
import { TableHead } from '../../../components/Table/Table'

function hostFacts(context: RunContext): [string, string][] {
  const host = context.context?.host
  const version = context.context?.upgradelab_version
  const storage = host?.storage
  const gib = host?.memory_bytes ? `${(host.memory_bytes / 2 ** 30).toFixed(1)} GiB` : '-'
  const facts: [string, string][] = [
    ['CPU', host?.cpu_model ?? '-'],
    ['cores', host?.cores != null ? String(host.cores) : '-'],
    ['memory', gib],
    ['kernel', host?.kernel ?? '-'],
    [
      'server data on',
      storage
        ? `${storage.path} (${[storage.device, storage.fs_type, storage.mount_point && `mounted at ${storage.mount_point}`]
            .filter(Boolean)
            .join(', ')})`
        : '-',
    ],
    ['Upgrade Lab', version ? [version.package, version.git_commit?.slice(0, 12)].filter(Boolean).join(' @ ') : '-'],
  ]
  return facts
}

/** Variables whose values differ between the variants' instances (only those), collapsed past 20 with
 * their count. */
function VariablesDiff({ context, diff }: { context: RunContext; diff: VariableDiff[] }) {
  const { shown, toggle } = useCollapsedRows(diff, 'variables-diff-more')
  if (diff.length === 0) {
    return (
      <p className="muted small" data-testid="variables-diff-empty">
        {context.variants.filter((v) => v.variables).length < 2
          ? 'Variables were not captured for at least two variants.'
          : 'Every global variable has the same value in every variant.'}
      </p>
    )
  }
  return (
    // Variants of different flavors differ in hundreds of variables: the table scrolls in its own box,
    // its toggle above it (in reach when it is open).
    <div className="table-scroll">
      <p className="muted small">
        {diff.length} variables differ (the instances' own paths and ports left out). {toggle}
      </p>
      <table className="data-table" data-testid="variables-diff">
        <thead>
          <tr>
            <th>Variable</th>
            {context.variants.map((v) => (
              <th key={v.variant_index}>{v.name}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((d) => (
            <tr key={d.name} data-testid="variables-diff-row" data-name={d.name}>
              <td>
                <code>{d.name}</code>
              </td>
              {d.values.map((value, i) => (
                <td key={i}>{value ?? <span className="muted">-</span>}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** The order of every round (a 30-round run's 30 lines), collapsed past 20 with their count. */
function ScheduleOrder({ order, names }: { order: number[][]; names: string[] }) {
  const { shown, toggle } = useCollapsedRows(order, 'schedule-more')
  return (
    <>
      <ol className="small" data-testid="schedule-order">
        {shown.map((round, index) => (
          <li key={index}>{round.map((variant) => names[variant] ?? `#${variant}`).join(' → ')}</li>
        ))}
      </ol>
      {toggle}
    </>
  )
}

/**
 * What produced the results: per variant version, version_comment, provisioner and image or binary;
 * host facts; the schedule (seed and the order of every round); the variables diff between variants (the
 * rounds and the variables collapsed past 20, with their counts).
 */
export function RunContextPanel({ runId }: { runId: number }) {
  const context = useQuery(runContextQuery(runId))
  const diff = useQuery(runVariablesDiffQuery(runId))
  const error = context.error ?? diff.error
  if (error) return <ErrorBox error={error} title="Could not load the run's context" />
  if (!context.data || !diff.data) return null
  const data = context.data
  const names = data.variants.map((v) => v.name)
  return (
    <section className="table-box" data-testid="run-context">
      <h2>Context</h2>
      <table className="data-table" data-testid="context-variants">
        <TableHead columns={['Variant', 'Version', 'version_comment', 'Provisioner', 'Image or binary', 'Status']} />
        <tbody>
          {data.variants.map((v) => (
            <tr key={v.variant_index} data-testid="context-variant">
              <td>
                {v.name} {v.is_aa_control && <span className="muted">(A/A control)</span>}
              </td>
              <td>{v.version ?? '-'}</td>
              <td>{v.version_comment ?? '-'}</td>
              <td>{v.provisioner ?? '-'}</td>
              <td>
                <code>{v.image_or_binary ?? '-'}</code>
              </td>
              <td>{v.error ? `${v.status}: ${v.error}` : v.status}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Host</h3>
      <dl className="facts" data-testid="context-host">
        {hostFacts(data).map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <h3>Schedule</h3>
      {data.schedule ? (
        <div data-testid="context-schedule">
          <p className="small">
            {data.schedule.kind ?? 'sequential'}, seed {data.schedule.seed ?? '-'}, {data.schedule.rounds ?? 1} round(s) of{' '}
            {data.schedule.block ?? '-'} iteration(s) per block
          </p>
          <ScheduleOrder order={data.schedule.order ?? []} names={names} />
        </div>
      ) : (
        <p className="muted small">No schedule recorded (a run from before interleaved rounds).</p>
      )}
      <h3>Variables diff</h3>
      <VariablesDiff context={data} diff={diff.data} />
    </section>
  )
}
