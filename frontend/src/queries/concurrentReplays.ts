// Query options of a concurrent replay by id (signed in; its page follows its stream,
// streams/useJobStream.ts: status and progress; a trial ended refetches it) and by its share link (no
// sign-in: polled every 2 s until it reaches a final status).
import { queryOptions } from '@tanstack/react-query'
import { concurrentReplaysApi } from '../api/concurrentReplays'
import { untilFinal } from './sharedPolling'

const POLL_MS = 2000

/** Concurrent replay `id` with its trials and report (GET /api/concurrent-replays/{id}). */
export function concurrentReplayQuery(id: number) {
  return queryOptions({ queryKey: ['concurrent-replay', id] as const, queryFn: () => concurrentReplaysApi.get(id) })
}

/** The concurrent replay shared under `token`, read-only (GET /api/public/concurrent-replays/{token}). */
export function sharedConcurrentReplayQuery(token: string) {
  return queryOptions({
    queryKey: ['shared-concurrent-replay', token] as const,
    queryFn: () => concurrentReplaysApi.shared(token),
    refetchInterval: untilFinal(POLL_MS),
  })
}
