import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useParams } from 'react-router-dom'
import { captureEventsPath, captureSharePath, capturesApi } from '../../api/captures'
import { ErrorBox } from '../../components/ErrorBox'
import { CancelButton } from '../../components/JobPage/CancelButton'
import { JobHeader } from '../../components/JobPage/JobHeader'
import { JobPage, useJob } from '../../components/JobPage/JobPage'
import { formatDateTime } from '../../format'
import { captureQuery } from '../../queries/captures'
import { meQuery } from '../../queries/users'
import { AccountsTable } from './AccountsTable'
import { CaptureSummary } from './CaptureSummary'
import { ChecksSection } from './ChecksSection'
import { ConfigurationSection } from './ConfigurationSection'
import { DumpSection } from './DumpSection'
import { ShareControl } from './ShareControl'
import { TeamReplaySection } from './TeamReplaySection'
import { WorkloadTable } from './WorkloadTable'
import { AssessForm } from '../../components/AssessForm'

/** /captures/:id: a team's server as captured, what a lead needs first on the first screen: status
 * and step while it runs, what it read counted (CaptureSummary: variables that differ, statements,
 * accounts, dataset, each a link to its section), why its workload is empty when it is, then its
 * checks against a new version (each one's headline and findings, most severe first, each with what
 * to do); below them the configuration against its version's defaults with the host facts, its
 * accounts, its workload digests and their queries.sql (long tables collapsed past 20 rows), the
 * dump; a share link of it (and of each check) for the operator (not a viewer). While it runs, its
 * events (GET /api/captures/{id}/events) move the step and refetch it at its end. */
export function CapturePage() {
  const { id = '' } = useParams()
  const captureId = Number(id)
  const queryClient = useQueryClient()
  const me = useQuery({ ...meQuery(), retry: false })
  const query = captureQuery(captureId)
  const { found, live } = useJob(query, captureEventsPath(captureId))
  const mayAct = me.data !== undefined && me.data.role !== 'viewer'
  return (
    <JobPage found={found} noun="capture" testId="capture-page">
      {(data) => (
        <>
          <p className="small">
            <Link to="/captures">Captures</Link> · target <Link to={`/targets/${data.target}`}>{data.target}</Link>
          </p>
          <JobHeader
            title={`Capture #${data.id} of ${data.target}`}
            status={data.status}
            statusTestId="capture-status"
            meta={
              <p className="run-meta">
                <span>created {formatDateTime(data.created_at)}</span>
                <span>started {formatDateTime(data.started_at)}</span>
                <span>finished {formatDateTime(data.finished_at)}</span>
                <span data-testid="capture-dump">
                  dump: {data.schema_only ? 'schema only' : data.data_limit_mb != null ? `data up to ${data.data_limit_mb} MiB` : 'schema and data'}
                </span>
              </p>
            }
            actions={
              live && (
                <CancelButton
                  cancel={() => capturesApi.cancel(captureId)}
                  onSettled={() => {
                    void queryClient.invalidateQueries({ queryKey: query.queryKey })
                    void queryClient.invalidateQueries({ queryKey: ['captures'] })
                  }}
                  testId="capture-cancel"
                />
              )
            }
          />
          {live && data.progress && (
            <p className="card" data-testid="capture-progress">
              {data.progress.phase}
              {data.progress.message && `: ${data.progress.message}`}
            </p>
          )}
          <CaptureSummary capture={data} />
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
          <AssessForm source={{ capture_id: data.id }} mayAct={mayAct && data.status === 'succeeded'} />
        </>
      )}
    </JobPage>
  )
}
