import { useQuery, type QueryKey, type UseQueryOptions } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { useParams } from 'react-router-dom'
import { ErrorBox } from '../ErrorBox'

interface Props<T, E, K extends QueryKey> {
  /** The read of the link's token (GET /api/public/...; the API's 404 for an unknown or revoked one). */
  query: (token: string) => UseQueryOptions<T, E, T, K>
  /** What the link shows, with its token (for its exports' public paths) and when it was read
   * (milliseconds since the epoch: a run's elapsed time). */
  children: (data: T, token: string, readAt: number) => ReactNode
}

/** Every share link's page (/share/...:token, opened without signing in): the read-only banner over
 * what the link shows, or why the link does not work (in `share-error`). */
export function SharedPage<T, E, K extends QueryKey>({ query, children }: Props<T, E, K>) {
  const { token = '' } = useParams()
  const found = useQuery(query(token))
  const data = found.data
  return (
    <div className="page" data-testid="share-page">
      {data !== undefined ? (
        <>
          <div className="shared-banner">Shared read-only view</div>
          {children(data, token, found.dataUpdatedAt)}
        </>
      ) : found.error ? (
        <ErrorBox error={found.error} title="This link does not work" testId="share-error" />
      ) : (
        <p className="muted">Loading…</p>
      )}
    </div>
  )
}
