// Query options of the fix searches: one by id (signed in; its page follows the search's stream,
// streams/useJobStream.ts), a replay's (its report rows say each fingerprint's search), and one by its
// share link (no sign-in, no stream: it polls every 2 s until the search reaches a final status).
import { queryOptions } from '@tanstack/react-query'
import { fixSearchesApi } from '../api/fixsearches'
import { isFinal } from '../api/models'
import { untilFinal } from './sharedPolling'

const POLL_MS = 2000

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
    refetchInterval: untilFinal(POLL_MS),
  })
}
