import { AttributionView } from '../../components/attribution/AttributionView'
import { SharedExport } from '../../components/JobPage/JobTools'
import { SharedPage } from '../../components/JobPage/SharedPage'
import { sharedAttributionQuery } from '../../queries/attributions'

/** /share/attributions/:token: an attribution read-only, without signing in (what an upgrade lead is
 * sent). No cancel or share; runs are named, not linked (their pages need a sign-in). */
export function AttributionSharePage() {
  return (
    <SharedPage query={sharedAttributionQuery}>
      {(data, token) => (
        <AttributionView attribution={data} linkRuns={false} tools={<SharedExport kind="attributions" token={token} testId="attribution" />} />
      )}
    </SharedPage>
  )
}
