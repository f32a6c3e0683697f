import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useParams } from 'react-router-dom'
import { captureEventsPath, captureSharePath, capturesApi } from '../../api/captures'
import { isFinal } from '../../api/models'
import { ErrorBox } from '../../components/ErrorBox'
import { formatDateTime } from '../../format'
import { captureQuery } from '../../queries/captures'
import { meQuery } from '../../queries/users'
import { useJobStream } from '../../streams/useJobStream'
import { AccountsTable } from './AccountsTable'
import { ChecksSection } from './ChecksSection'
import { ConfigurationSection } from './ConfigurationSection'
import { DumpSection } from './DumpSection'
import { ShareControl } from './ShareControl'
import { TeamReplaySection } from './TeamReplaySection'
import { WorkloadTable } from './WorkloadTable'

/** /captures/:id: a team's server as captured, what a lead needs first on the first screen: status
 * and step while it runs, why its workload is empty when it is, then its checks against a new
 * version (each one's headline and findings, most severe first, each with what to do); below them
 * the configuration against its version's defaults with the host facts, its accounts, its workload
 * digests and their queries.sql (long tables collapsed past 20 rows), the dump; a share link of it
 * (and of each check) for the operator (not a viewer). While it runs, its events
 * (GET /api/captures/{id}/events) move the step and refetch it at its end. */
export function CapturePage() {
  const { id = '' } = useParams()
  const captureId = Number(id)
  const queryClient = useQueryClient()
  const me = useQuery({ ...meQuery(), retry: false })
  const query = captureQuery(captureId)
  const found = useQuery(query)
  const live = found.data !== undefined && !isFinal(found.data.status)
  useJobStream(captureEventsPath(captureId), live, query.queryKey, isFinal)
  const cancel = useMutation({
    mutationFn: () => capturesApi.cancel(captureId),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: query.queryKey })
      void queryClient.invalidateQueries({ queryKey: ['captures'] })
    },
  })
  const data = found.data
  if (!data)
    return (
      <div className="page">
        {found.error ? <ErrorBox error={found.error} title="Could not load the capture" /> : <p className="muted">Loading…</p>}
      </div>
    )
  const final = isFinal(data.status)
  const mayAct = me.data !== undefined && me.data.role !== 'viewer'
  return (
    <div className="page" data-testid="capture-page">
      <p className="small">
        <Link to="/captures">Captures</Link> · target <Link to={`/targets/${data.target}`}>{data.target}</Link>
      </p>
      <div className="page-header">
        <h1>
          Capture #{data.id} of {data.target}
        </h1>
        <span className={`badge badge-${data.status}`} data-testid="capture-status">
          {data.status}
        </span>
        {!final && mayAct && (
          <button
            type="button"
            className="btn btn-danger"
            data-testid="capture-cancel"
            disabled={cancel.isPending || cancel.isSuccess}
            onClick={() => cancel.mutate()}
          >
            {cancel.isPending || cancel.isSuccess ? 'Cancelling…' : 'Cancel'}
          </button>
        )}
      </div>
      <p className="run-meta">
        <span>created {formatDateTime(data.created_at)}</span>
        <span>started {formatDateTime(data.started_at)}</span>
        <span>finished {formatDateTime(data.finished_at)}</span>
        <span data-testid="capture-dump">
          dump: {data.schema_only ? 'schema only' : data.data_limit_mb != null ? `data up to ${data.data_limit_mb} MiB` : 'schema and data'}
        </span>
      </p>
      {!final && data.progress && (
        <p className="card" data-testid="capture-progress">
          {data.progress.phase}
          {data.progress.message && `: ${data.progress.message}`}
        </p>
      )}
      {mayAct && (
        <ShareControl
          testId="capture-share"
          shared={data.shared ?? false}
          pathOf={captureSharePath}
          share={() => capturesApi.share(captureId)}
          revoke={() => capturesApi.revokeShare(captureId)}
          onChanged={() => void queryClient.invalidateQueries({ queryKey: query.queryKey })}
        />
      )}
      <ErrorBox error={cancel.error} title="Cancel failed" />
      <ErrorBox error={data.error} title="Capture failed" testId="capture-error" />
      {data.workload?.empty && (
        <p className="notice small" data-testid="capture-workload-empty">
          No replayable statement captured{data.workload.problems?.[0] ? `: ${data.workload.problems[0].words}. Fix: ${data.workload.problems[0].fix}` : '.'}
        </p>
      )}
      {(data.status === 'succeeded' || mayAct) && (
        <ChecksSection captureId={data.id} canCheck={data.status === 'succeeded' && mayAct} canShare={mayAct} />
      )}
      {data.configuration && <ConfigurationSection configuration={data.configuration} />}
      {(data.accounts || data.accounts_error) && <AccountsTable accounts={data.accounts} error={data.accounts_error} />}
      {data.workload && <WorkloadTable captureId={data.id} workload={data.workload} />}
      <DumpSection capture={data} />
      {data.status === 'succeeded' && data.configuration && mayAct && <TeamReplaySection capture={data} />}
    </div>
  )
}
