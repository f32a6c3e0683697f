// Query options of the worker pools: the list (live workers, queue depth, jobs waiting) and where one
// queued job waits. Both are polled: heartbeats come and go every few seconds.
import { queryOptions } from '@tanstack/react-query'
import { api } from '../api/client'

export const POOLS_POLL_MS = 5000

/** Every pool (GET /api/pools), refreshed every 5 s. */
export function poolsQuery() {
  return queryOptions({ queryKey: ['pools'] as const, queryFn: api.pools, refetchInterval: POOLS_POLL_MS })
}

/** Where queued job `kind` #`id` waits and whether its pool has a live worker (GET /api/pools/jobs/…). */
export function jobPoolQuery(kind: 'run' | 'replay', id: number) {
  return queryOptions({
    queryKey: ['pools', kind, id] as const,
    queryFn: () => api.jobPool(kind, id),
    refetchInterval: POOLS_POLL_MS,
  })
}
