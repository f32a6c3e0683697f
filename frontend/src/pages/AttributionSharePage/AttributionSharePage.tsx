import { useQuery } from '@tanstack/react-query'
import { useParams } from 'react-router-dom'
import { AttributionView } from '../../components/attribution/AttributionView'
import { ExportLinks } from '../../components/JobPage/JobTools'
import { SharedPage } from '../../components/JobPage/SharedPage'
import { sharedAttributionQuery } from '../../queries/attributions'

/** /share/attributions/:token: an attribution read-only, without signing in (what an upgrade lead is
 * sent). No cancel or share; runs are named, not linked (their pages need a sign-in). */
export function AttributionSharePage() {
  const { token = '' } = useParams()
  const shared = useQuery(sharedAttributionQuery(token))
  return (
    <SharedPage found={shared}>
      {(data) => (
        <AttributionView
          attribution={data}
          linkRuns={false}
          tools={
            <p className="muted">
              <ExportLinks href={`/api/public/attributions/${encodeURIComponent(token)}/export`} testId="attribution" />
            </p>
          }
        />
      )}
    </SharedPage>
  )
}
