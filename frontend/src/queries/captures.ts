// Query options of the captures: the list (all, or one target's), one capture (its page follows the
// capture's stream, streams/useJobStream.ts) and its checks (each running check's stream refetches
// them: pages/CapturePage/ChecksSection.tsx).
import { queryOptions } from '@tanstack/react-query'
import { capturesApi } from '../api/captures'
import { isFinal } from '../api/models'
import type { CaptureSummary } from '../client'
import { untilFinal } from './sharedPolling'

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

/** Capture `id`'s checks, newest first (GET /api/captures/{id}/checks). Not polled: the page follows
 * each running check over its events (pages/CapturePage/CheckEvents.tsx). */
export function checksQuery(id: number) {
  return queryOptions({ queryKey: ['capture', id, 'checks'] as const, queryFn: () => capturesApi.checks(id) })
}

/** The capture shared under `token`, read-only (GET /api/public/captures/{token}; 404 unknown or revoked). */
export function sharedCaptureQuery(token: string) {
  return queryOptions({
    queryKey: ['shared-capture', token] as const,
    queryFn: () => capturesApi.shared(token),
    refetchInterval: untilFinal(POLL_MS),
  })
}

/** The check shared under `token`, read-only (GET /api/public/captures/checks/{token}). */
export function sharedCheckQuery(token: string) {
  return queryOptions({
    queryKey: ['shared-check', token] as const,
    queryFn: () => capturesApi.sharedCheck(token),
    refetchInterval: untilFinal(POLL_MS),
  })
}
