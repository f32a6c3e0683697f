// Query options of the fix searches: one by id (signed in; its page follows the search's stream,
// streams/useJobStream.ts), a replay's (its report rows say each fingerprint's search), and one by its
// share link (no sign-in, no stream: it polls every 2 s until the search reaches a final status).
import { queryOptions } from '@tanstack/react-query'
import { ApiError } from '../api/client'
import { fixSearchesApi } from '../api/fixsearches'
import { isFinal } from '../api/models'
import type { FixSearchRead } from '../client'

const POLL_MS = 2000

/** Poll while the search runs; stop once final, or on a 4xx (an unknown link does not appear by
 * asking again; a network error or 5xx may pass). */
function untilFinal(query: { state: { data?: FixSearchRead; error: unknown } }): number | false {
  const { data, error } = query.state
  if (!data) return error instanceof ApiError && error.status < 500 ? false : POLL_MS
  return isFinal(data.status) ? false : POLL_MS
}

/** Fix search `id` with its candidates, trials, progress and result (GET /api/fixsearches/{id}). */
export function fixSearchQuery(id: number) {
  return queryOptions({ queryKey: ['fixsearch', id] as const, queryFn: () => fixSearchesApi.get(id) })
}

/** Replay `replayId`'s fix searches, newest first (GET /api/fixsearches?replay_id=); polled every 5 s
 * while one of them runs, so the report's rows follow them without a stream each. */
export function replayFixSearchesQuery(replayId: number) {
  return queryOptions({
    queryKey: ['fixsearches', replayId] as const,
    queryFn: () => fixSearchesApi.list(replayId),
    refetchInterval: (query) => (query.state.data?.some((s) => !isFinal(s.status)) ? 5000 : false),
  })
}

/** The fix search shared under `token`, read-only (GET /api/public/fixsearches/{token}; 404 unknown). */
export function sharedFixSearchQuery(token: string) {
  return queryOptions({
    queryKey: ['shared-fixsearch', token] as const,
    queryFn: () => fixSearchesApi.shared(token),
    refetchInterval: untilFinal,
  })
}
