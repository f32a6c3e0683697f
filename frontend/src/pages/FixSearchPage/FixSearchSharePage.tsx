import { useQuery } from '@tanstack/react-query'
import { useParams } from 'react-router-dom'
import { ErrorBox } from '../../components/ErrorBox'
import { sharedFixSearchQuery } from '../../queries/fixsearches'
import { FixSearchView } from './FixSearchView'

/** /share/fixsearches/:token: a fix search read-only, without signing in. No cancel or share; the
 * replay is named, not linked (its page needs a sign-in). */
export function FixSearchSharePage() {
  const { token = '' } = useParams()
  const shared = useQuery(sharedFixSearchQuery(token))
  const exportPath = `/api/public/fixsearches/${encodeURIComponent(token)}/export`
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
      <FixSearchView
        search={shared.data}
        linkReplay={false}
        tools={
          <p className="muted">
            Export <a href={`${exportPath}?format=csv`} data-testid="fix-csv">CSV</a> ·{' '}
            <a href={`${exportPath}?format=json`} data-testid="fix-json">JSON</a>
          </p>
        }
      />
    </div>
  )
}
