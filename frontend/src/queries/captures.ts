// Query options of the captures: the list (all, or one target's), one capture (its page follows the
// capture's stream, streams/useJobStream.ts) and its checks (polled while one runs: a check takes
// seconds and has no stream of its own).
import { queryOptions } from '@tanstack/react-query'
import { capturesApi } from '../api/captures'
import { isFinal } from '../api/models'
import type { CaptureSummary, CheckRead } from '../client'

/** Milliseconds between two reads of a list that holds a job not yet final. */
export const POLL_MS = 1500

function whileRunning(rows: { status: CaptureSummary['status'] }[] | undefined): number | false {
  return rows?.some((row) => !isFinal(row.status)) ? POLL_MS : false
}

/** Captures, newest first; only target `target`'s when given (GET /api/captures). Polled while one
 * is queued or running. */
export function capturesQuery(target?: string) {
  return queryOptions({
    queryKey: ['captures', target ?? null] as const,
    queryFn: () => capturesApi.list(target),
    refetchInterval: (query) => whileRunning(query.state.data),
  })
}

/** Capture `id` with its configuration, accounts and workload (GET /api/captures/{id}). */
export function captureQuery(id: number) {
  return queryOptions({ queryKey: ['capture', id] as const, queryFn: () => capturesApi.get(id) })
}

/** Capture `id`'s checks, newest first (GET /api/captures/{id}/checks); polled while one runs. */
export function checksQuery(id: number) {
  return queryOptions({
    queryKey: ['capture', id, 'checks'] as const,
    queryFn: () => capturesApi.checks(id),
    refetchInterval: (query) => whileRunning(query.state.data as CheckRead[] | undefined),
  })
}
