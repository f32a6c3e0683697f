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
  const exportPath = `/api/public/attributions/${encodeURIComponent(token)}/export`
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
            Export <a href={`${exportPath}?format=csv`} data-testid="attribution-csv">CSV</a> ·{' '}
            <a href={`${exportPath}?format=json`} data-testid="attribution-json">JSON</a>
          </p>
        }
      />
    </div>
  )
}
