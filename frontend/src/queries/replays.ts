// Query options of the replays: the list and one replay with its report.
import { queryOptions } from '@tanstack/react-query'
import { api } from '../api/client'

/** Every replay, newest first (GET /api/replays). */
export function replaysQuery() {
  return queryOptions({ queryKey: ['replays'] as const, queryFn: api.replays })
}

/** Replay `id` with its progress and report (GET /api/replays/{id}). */
export function replayQuery(id: number) {
  return queryOptions({ queryKey: ['replay', id] as const, queryFn: () => api.replay(id) })
}
