import { useQueryClient, type QueryKey } from '@tanstack/react-query'
import { useEffect, useMemo } from 'react'
import { useEventStream, type EventStream } from './useEventStream'

/** What a replay's or an attribution's page holds of its job (ReplayRead, AttributionRead). */
interface JobRead {
  status: string
  progress?: unknown
}

/** The `snapshot` and `status` events' data (api/streaming.py). */
interface StatusData {
  status?: string | null
  progress?: unknown
}

/** Milliseconds between two polls of a job's page while its stream is down (it polled every 1.5 s
 * before the stream; now only as a fallback). */
export const FALLBACK_POLL_MS = 10_000

/** For a job held inside another query's data (a capture's checks: one list, a stream per check). */
export interface JobStreamOptions {
  /** The job in the cached data of `queryKey` (undefined: not there yet, refetched). Its progress
   * is then not written in place: a progress the page does not hold refetches the data. */
  pick?: (cached: unknown) => JobRead | undefined
  /** Milliseconds between polls while the stream is down (FALLBACK_POLL_MS unless given). */
  fallbackMs?: number
}

/**
 * A replay's or an attribution's page following its job over Server-Sent Events
 * (GET /api/{replays,attributions}/{id}/events, api/streaming.py; streams/useEventStream.ts):
 * - `status` with a new status, `step` (an attribution's step run started or finished), `schedule`
 *   and `report` (a replay's rounds planned, its report stored): the page's data `queryKey` is
 *   refetched (TanStack Query invalidation);
 * - `status` with progress only (a replay's phase, variant and dump load; an attribution's phase):
 *   written into the cached data, without a request;
 * - `snapshot` (a connection's first event): refetched when it differs from the cached data (the
 *   page's first GET and the stream's start are not one moment);
 * - a final status: refetched once more, and the stream ends.
 * `isFinal(status)`: the kind's final statuses. While the stream is down (`failed`: a connection broke
 * and none is open yet) the data is refetched every FALLBACK_POLL_MS instead; the page's query itself
 * polls no more. `options`: for a job inside a list (JobStreamOptions).
 */
export function useJobStream<S extends string>(
  path: string,
  enabled: boolean,
  queryKey: QueryKey,
  isFinal: (status: S) => boolean,
  { pick, fallbackMs = FALLBACK_POLL_MS }: JobStreamOptions = {},
): EventStream {
  const queryClient = useQueryClient()
  const keyText = JSON.stringify(queryKey) // one value per key, whatever array holds it
  const handlers = useMemo(() => {
    const queryKey = JSON.parse(keyText) as QueryKey
    const cached = () => {
      const data = queryClient.getQueryData<unknown>(queryKey)
      return pick ? pick(data) : (data as JobRead | undefined)
    }
    const refetch = () => void queryClient.invalidateQueries({ queryKey })
    const onStatus = (raw: unknown, snapshot: boolean): boolean => {
      const data = raw as StatusData
      const held = cached()
      const status = data.status ?? held?.status
      if (status && isFinal(status as S)) {
        if (!held || held.status !== status) refetch()
        return true
      }
      if (!held || (data.status && data.status !== held.status)) {
        refetch()
      } else if (snapshot && JSON.stringify(data.progress ?? null) !== JSON.stringify(held.progress ?? null)) {
        refetch()
      } else if ('progress' in data) {
        if (pick) {
          if (JSON.stringify(data.progress ?? null) !== JSON.stringify(held.progress ?? null)) refetch()
        } else queryClient.setQueryData<JobRead>(queryKey, { ...held, progress: data.progress })
      }
      return false
    }
    return {
      on: {
        snapshot: (raw: unknown) => onStatus(raw, true),
        status: (raw: unknown) => onStatus(raw, false),
        step: refetch,
        schedule: refetch,
        report: refetch,
      },
    }
  }, [queryClient, keyText, isFinal, pick])
  const stream = useEventStream(path, enabled, handlers)
  const down = enabled && stream.failed
  useEffect(() => {
    if (!down) return
    const queryKey = JSON.parse(keyText) as QueryKey
    const timer = window.setInterval(() => void queryClient.invalidateQueries({ queryKey }), fallbackMs)
    return () => window.clearInterval(timer)
  }, [down, queryClient, keyText, fallbackMs])
  return stream
}
