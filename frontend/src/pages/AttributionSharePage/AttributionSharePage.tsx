import { useQuery } from '@tanstack/react-query'
import { useParams } from 'react-router-dom'
import { AttributionView } from '../../components/attribution/AttributionView'
import { ErrorBox } from '../../components/ErrorBox'
import { sharedAttributionQuery } from '../../queries/attributions'

/** /share/attributions/:token: an attribution read-only, without signing in (what an upgrade lead is
 * sent). No cancel or share; runs are named, not linked (their pages need a sign-in). */
export function AttributionSharePage() {
  const { token = '' } = useParams()
  const shared = useQuery(sharedAttributionQuery(token))
  if (!shared.data) {
    return (
      <div className="page" data-testid="share-page">
        {shared.error ? (
          <ErrorBox error={shared.error} title="This link does not work" testId="share-error" />
        ) : (
          <p className="muted">Loading…</p>
        )}
      </div>
    )
  }
  return (
    <div className="page" data-testid="share-page">
      <div className="shared-banner">Shared read-only view</div>
      <AttributionView
        attribution={shared.data}
        linkRuns={false}
        tools={
          <p className="muted">
            Export <a href={`/api/public/attributions/${encodeURIComponent(token)}`} data-testid="attribution-json">JSON</a>
          </p>
        }
      />
    </div>
  )
}
