// Query options of the attributions: one by id (signed in; its page follows the attribution's stream,
// streams/useJobStream.ts) and one by its share link (no sign-in, no stream: it polls every 2 s until the
// attribution reaches a final status).
import { queryOptions } from '@tanstack/react-query'
import { attributionsApi } from '../api/attributions'
import { untilFinal } from './sharedPolling'

const POLL_MS = 2000

/** Attribution `id` with its candidates, steps, progress and result (GET /api/attributions/{id}). */
export function attributionQuery(id: number) {
  return queryOptions({ queryKey: ['attribution', id] as const, queryFn: () => attributionsApi.get(id) })
}

/** The attribution shared under `token`, read-only (GET /api/public/attributions/{token}; 404 unknown). */
export function sharedAttributionQuery(token: string) {
  return queryOptions({
    queryKey: ['shared-attribution', token] as const,
    queryFn: () => attributionsApi.shared(token),
    refetchInterval: untilFinal(POLL_MS),
  })
}
