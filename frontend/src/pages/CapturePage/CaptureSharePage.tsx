import { useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { useParams } from 'react-router-dom'
import { sharedCheckCsvPath } from '../../api/captures'
import { ErrorBox } from '../../components/ErrorBox'
import { sharedCaptureQuery, sharedCheckQuery } from '../../queries/captures'
import { AccountsTable } from './AccountsTable'
import { CheckView } from './CheckView'
import { ConfigurationSection } from './ConfigurationSection'
import { WorkloadTable } from './WorkloadTable'

/** The frame of a shared page: its banner, or why the link does not work (unknown or revoked). */
function Shared({ ready, error, children }: { ready: boolean; error: unknown; children: ReactNode }) {
  return (
    <div className="page" data-testid="share-page">
      {ready ? (
        <>
          <div className="shared-banner">Shared read-only view</div>
          {children}
        </>
      ) : error ? (
        <ErrorBox error={error} title="This link does not work" testId="share-error" />
      ) : (
        <p className="muted">Loading…</p>
      )}
    </div>
  )
}

/** /share/captures/:token: a capture read-only, without signing in: its configuration against its
 * version's defaults, its accounts and its workload (no queries.sql, checks, cancel or share: those
 * need a sign-in; a check is shared on its own). */
export function CaptureSharePage() {
  const { token = '' } = useParams()
  const shared = useQuery(sharedCaptureQuery(token))
  const data = shared.data
  return (
    <Shared ready={data !== undefined} error={shared.error}>
      {data && (
        <>
          <div className="page-header">
            <h1>
              Capture #{data.id} of {data.target}
            </h1>
            <span className={`badge badge-${data.status}`} data-testid="capture-status">
              {data.status}
            </span>
          </div>
          <ErrorBox error={data.error} title="Capture failed" testId="capture-error" />
          {data.configuration && <ConfigurationSection configuration={data.configuration} />}
          {(data.accounts || data.accounts_error) && <AccountsTable accounts={data.accounts} error={data.accounts_error} />}
          {data.workload && <WorkloadTable captureId={data.id} workload={data.workload} queriesLink={false} />}
        </>
      )}
    </Shared>
  )
}

/** /share/captures/checks/:token: a check read-only, without signing in: its findings by severity,
 * each with its evidence, and their CSV. */
export function CheckSharePage() {
  const { token = '' } = useParams()
  const shared = useQuery(sharedCheckQuery(token))
  return (
    <Shared ready={shared.data !== undefined} error={shared.error}>
      {shared.data && (
        <>
          <h1>Capture #{shared.data.capture_id} against a new version</h1>
          <p className="muted">
            Findings as <a href={sharedCheckCsvPath(token)} data-testid="check-csv">CSV</a>
          </p>
          <CheckView check={shared.data} />
        </>
      )}
    </Shared>
  )
}
