// Query options of the attributions: one by id (signed in; its page follows the attribution's stream,
// streams/useJobStream.ts) and one by its share link (no sign-in, no stream: it polls every 2 s until the
// attribution reaches a final status).
import { queryOptions } from '@tanstack/react-query'
import { attributionsApi } from '../api/attributions'
import { isFinal } from '../api/models'
import { ApiError } from '../api/client'
import type { AttributionRead } from '../client'

const POLL_MS = 2000

/** Poll while the attribution runs; stop once it succeeded, failed or was cancelled, or on a 4xx (an
 * unknown id or link does not appear by asking again; a network error or 5xx may pass). */
function untilFinal(query: { state: { data?: AttributionRead; error: unknown } }): number | false {
  const data = query.state.data
  const { error } = query.state
  if (!data) return error instanceof ApiError && error.status < 500 ? false : POLL_MS
  return isFinal(data.status) ? false : POLL_MS
}

/** Attribution `id` with its candidates, steps, progress and result (GET /api/attributions/{id}). */
export function attributionQuery(id: number) {
  return queryOptions({ queryKey: ['attribution', id] as const, queryFn: () => attributionsApi.get(id) })
}

/** The attribution shared under `token`, read-only (GET /api/public/attributions/{token}; 404 unknown). */
export function sharedAttributionQuery(token: string) {
  return queryOptions({
    queryKey: ['shared-attribution', token] as const,
    queryFn: () => attributionsApi.shared(token),
    refetchInterval: untilFinal,
  })
}
