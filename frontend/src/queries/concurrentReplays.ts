// Query options of a concurrent replay by id (signed in; its page follows its stream,
// streams/useJobStream.ts: status and progress; a trial ended refetches it).
import { queryOptions } from '@tanstack/react-query'
import { concurrentReplaysApi } from '../api/concurrentReplays'

/** Concurrent replay `id` with its trials and report (GET /api/concurrent-replays/{id}). */
export function concurrentReplayQuery(id: number) {
  return queryOptions({ queryKey: ['concurrent-replay', id] as const, queryFn: () => concurrentReplaysApi.get(id) })
}
