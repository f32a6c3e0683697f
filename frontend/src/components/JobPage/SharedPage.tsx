import type { ReactNode } from 'react'
import { ErrorBox } from '../ErrorBox'
import type { Loaded } from './JobPage'

/** Every share link's page (opened without signing in): the read-only banner over what the link
 * shows (`children`), or why the link does not work (unknown or revoked: the API's 404, in
 * `share-error`). */
export function SharedPage<T>({ found, children }: { found: Loaded<T>; children: (data: T) => ReactNode }) {
  const data = found.data
  return (
    <div className="page" data-testid="share-page">
      {data !== undefined ? (
        <>
          <div className="shared-banner">Shared read-only view</div>
          {children(data)}
        </>
      ) : found.error ? (
        <ErrorBox error={found.error} title="This link does not work" testId="share-error" />
      ) : (
        <p className="muted">Loading…</p>
      )}
    </div>
  )
}
