import { sharedCheckCsvPath } from '../../api/captures'
import { ErrorBox } from '../../components/ErrorBox'
import { JobHeader } from '../../components/JobPage/JobHeader'
import { SharedPage } from '../../components/JobPage/SharedPage'
import { sharedCaptureQuery, sharedCheckQuery } from '../../queries/captures'
import { AccountsTable } from './AccountsTable'
import { CaptureSummary } from './CaptureSummary'
import { CheckView } from './CheckView'
import { ConfigurationSection } from './ConfigurationSection'
import { WorkloadTable } from './WorkloadTable'

/** /share/captures/:token: a capture read-only, without signing in: what it read counted
 * (CaptureSummary), its configuration against its version's defaults, its accounts and its workload
 * (no queries.sql, checks, cancel or share: those need a sign-in; a check is shared on its own). */
export function CaptureSharePage() {
  return (
    <SharedPage query={sharedCaptureQuery}>
      {(data) => (
        <>
          <JobHeader title={`Capture #${data.id} of ${data.target}`} status={data.status} statusTestId="capture-status" />
          <CaptureSummary capture={data} />
          <ErrorBox error={data.error} title="Capture failed" testId="capture-error" />
          {data.configuration && <ConfigurationSection configuration={data.configuration} />}
          {(data.accounts || data.accounts_error) && <AccountsTable accounts={data.accounts} error={data.accounts_error} />}
          {data.workload && <WorkloadTable captureId={data.id} workload={data.workload} queriesLink={false} />}
        </>
      )}
    </SharedPage>
  )
}

/** /share/captures/checks/:token: a check read-only, without signing in: its findings by severity,
 * each with its evidence, and their CSV. */
export function CheckSharePage() {
  return (
    <SharedPage query={sharedCheckQuery}>
      {(data, token) => (
        <>
          <h1>Capture #{data.capture_id} against a new version</h1>
          <p className="muted">
            Findings as <a href={sharedCheckCsvPath(token)} data-testid="check-csv">CSV</a>
          </p>
          <CheckView check={data} />
        </>
      )}
    </SharedPage>
  )
}
