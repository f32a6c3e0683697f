import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useParams } from 'react-router-dom'
import { api } from '../../api/client'
import { ErrorBox } from '../../components/ErrorBox'
import { JobHeader } from '../../components/JobPage/JobHeader'
import { JobPage, jobControls, useJob, type JobControlsOf } from '../../components/JobPage/JobPage'
import { formatDateTime } from '../../format'
import { ReplayReportView } from '../../components/ReplayReport/ReplayReportView'
import { VariantSettingsList } from '../../components/ReplayReport/VariantSettingsList'
import { ReplayProgress } from './ReplayProgress'
import { replayQuery, replaysQuery } from '../../queries/replays'
import { replayFixSearchesQuery } from '../../queries/fixsearches'
import { meQuery } from '../../queries/users'
import { FindFix } from './FindFix'
import { searchesByFingerprint } from './findFix'
import { FixSearches } from './FixSearches'

/** A replay's cancel (the statement running is killed, its servers stopped, what it measured kept as a
 * partial report), exports and share link (a ShareLink row: /share/:token). */
const CONTROLS: JobControlsOf = {
  testId: 'replay',
  apiPath: '/api/replays',
  cancel: api.cancelReplay,
  share: async (id) => (await api.createShare({ kind: 'replay', replay_id: id })).path,
  shareTestId: 'replay-share-link',
}

/** /replays/:id, its answer first: status, progress or why it failed, one verdict line per variant, then what
 * changes per fingerprint, grouped (breaks, slower, faster, same, ...), the replay's fix searches; then how it
 * was measured (dataset, statements, rounds, each variant's settings, skipped writes, per-statement cost, the
 * summary table). While the replay runs, its events (GET /api/replays/{id}/events) move the progress and
 * refetch the rest. */
export function ReplayPage() {
  const { id = '' } = useParams()
  const queryClient = useQueryClient()
  const query = replayQuery(Number(id))
  const { found: replay, live } = useJob(query, `/api/replays/${id}/events`)
  const refresh = () => {
    void queryClient.invalidateQueries(query)
    void queryClient.invalidateQueries(replaysQuery())
  }
  const me = useQuery({ ...meQuery(), retry: false })
  // a fix search needs a succeeded replay (the API's 409 otherwise): asked for only then
  const fixable = replay.data?.status === 'succeeded' && replay.data.report != null
  const fixSearches = useQuery({ ...replayFixSearchesQuery(Number(id)), enabled: fixable })
  const searchesOf = searchesByFingerprint(fixSearches.data ?? [])
  return (
    <JobPage found={replay} noun="replay">
      {(data) => {
        const report = data.report
        const { actions, tools } = jobControls(CONTROLS, data, live, refresh)
        const method = (
          <>
            <p className="muted">
              Dataset {data.dataset}, {data.statements} statements ({data.source_format}), {data.rounds} interleaved rounds
              {data.max_rounds != null && data.max_rounds > data.rounds && ` (up to ${data.max_rounds} for the fingerprints still undecided)`}, variants{' '}
              {data.variants.map((v) => v.name).join(', ')} (baseline first), each statement bounded to {data.statement_timeout_s} s
              {data.allow_writes ? ', writes replayed' : ', read-only'}.
            </p>
            <VariantSettingsList variants={data.variants} />
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
          </>
        )
        return (
          <>
            <JobHeader
              title={data.name}
              status={data.status}
              statusTestId="replay-status"
              actions={actions}
            />
            {report && tools}
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
            {report ? (
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
                below={fixSearches.data && <FixSearches searches={fixSearches.data} />}
                method={method}
              />
            ) : (
              method
            )}
          </>
        )
      }}
    </JobPage>
  )
}
