import { useQuery } from '@tanstack/react-query'
import { useParams } from 'react-router-dom'
import { isFinal } from '../../api/models'
import { ErrorBox } from '../../components/ErrorBox'
import { formatDateTime } from '../../format'
import { CancelReplay } from './CancelReplay'
import { ReplayReportView } from '../../components/ReplayReport/ReplayReportView'
import { VariantSettingsList } from '../../components/ReplayReport/VariantSettingsList'
import { ShareReplay } from './ShareReplay'
import { ReplayProgress } from './ReplayProgress'
import { replayQuery } from '../../queries/replays'
import { useJobStream } from '../../streams/useJobStream'
import { replayFixSearchesQuery } from '../../queries/fixsearches'
import { meQuery } from '../../queries/users'
import { FindFix } from './FindFix'
import { searchesByFingerprint } from './findFix'
import { FixSearches } from './FixSearches'

/** /replays/:id: the summary per variant, then what changes per fingerprint, grouped (breaks, slower, faster, same, ...).
 * While the replay runs, its events (GET /api/replays/{id}/events) move the progress and refetch the rest. */
export function ReplayPage() {
  const { id = '' } = useParams()
  const query = replayQuery(Number(id))
  const replay = useQuery(query)
  const live = replay.data !== undefined && !isFinal(replay.data.status)
  useJobStream(`/api/replays/${id}/events`, live, query.queryKey, isFinal)
  const me = useQuery({ ...meQuery(), retry: false })
  // a fix search needs a succeeded replay (the API's 409 otherwise): asked for only then
  const fixable = replay.data?.status === 'succeeded' && replay.data.report != null
  const fixSearches = useQuery({ ...replayFixSearchesQuery(Number(id)), enabled: fixable })
  const searchesOf = searchesByFingerprint(fixSearches.data ?? [])
  const data = replay.data
  if (!data) return <div className="page"><ErrorBox error={replay.error} /></div>
  const report = data.report
  const final = isFinal(data.status)
  return (
    <div className="page">
      <div className="page-header">
        <h1>{data.name}</h1>
        <span className={`badge badge-${data.status}`} data-testid="replay-status">
          {data.status}
        </span>
        {!final && <CancelReplay replayId={data.id} />}
      </div>
      <p className="muted">
        Dataset {data.dataset}, {data.statements} statements ({data.source_format}), {data.rounds} interleaved rounds
        {data.max_rounds != null && data.max_rounds > data.rounds && ` (up to ${data.max_rounds} for the fingerprints still undecided)`}, variants{' '}
        {data.variants.map((v) => v.name).join(', ')} (baseline first), each statement bounded to {data.statement_timeout_s} s
        {data.allow_writes ? ', writes replayed' : ', read-only'}.
        {report && (
          <>
            {' '}
            Export <a href={`/api/replays/${data.id}/export?format=csv`}>CSV</a> ·{' '}
            <a href={`/api/replays/${data.id}/export?format=json`}>JSON</a> <ShareReplay replayId={data.id} />
          </>
        )}
      </p>
      <VariantSettingsList variants={data.variants} />
      {data.dataset_deleted_at && (
        <p className="notice" data-testid="dataset-deleted">
          Dataset {data.dataset} was deleted on {formatDateTime(data.dataset_deleted_at)}; this report is kept. To
          replay on it again, upload its dump again (<a href="/datasets">Datasets</a>): it is the same dump when its
          sha256 is <code style={{ wordBreak: 'break-all' }}>{data.dataset_sha256}</code>.
        </p>
      )}
      {data.progress && <ReplayProgress progress={data.progress} />}
      {report?.partial && (
        <p className="muted" data-testid="replay-partial">
          Partial report: the replay was cancelled; it shows the {report.statements} statements captured on every variant and the{' '}
          {report.rounds ?? 0} rounds every variant completed.
        </p>
      )}
      {data.status === 'cancelled' && !report && (
        <p className="muted" data-testid="replay-partial">
          Cancelled before every variant had captured its statements' outcomes: nothing was measured that could be
          compared.
        </p>
      )}
      <ErrorBox error={data.error} title="Replay failed" testId="replay-failure" />
      {data.skipped_writes.length > 0 && (
        <details data-testid="skipped-writes">
          <summary>{data.skipped_writes.length} writes skipped (read-only replay)</summary>
          <ul>
            {data.skipped_writes.map((s, i) => (
              <li key={i}>
                <code>{s.sql}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
      {fixSearches.data && <FixSearches searches={fixSearches.data} />}
      {report && (
        <ReplayReportView
          report={report}
          rowExtra={
            fixable
              ? (f) => (
                  <FindFix
                    replayId={data.id}
                    fingerprint={f}
                    variants={report.variants.map((v) => v.name)}
                    baseline={report.baseline}
                    searches={searchesOf.get(f.fingerprint_id) ?? []}
                    canStart={me.data?.role !== 'viewer'}
                  />
                )
              : undefined
          }
        />
      )}
    </div>
  )
}
