import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query'
import { act, renderHook } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FakeEventSource } from '../test/fakeEventSource'
import { FALLBACK_POLL_MS, useJobStream } from './useJobStream'

const KEY = ['replay', 3] as const
const isFinal = (status: string) => ['succeeded', 'failed', 'cancelled'].includes(status)

/** A replay page's query (its GETs counted) and its stream, as ReplayPage wires them. */
function page(first: { status: string; progress: unknown }) {
  let answer = first
  const fetched = vi.fn(async () => answer)
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  )
  const view = renderHook(
    () => {
      const query = useQuery({ queryKey: KEY, queryFn: fetched })
      const live = query.data !== undefined && !isFinal(query.data.status)
      const stream = useJobStream('/api/replays/3/events', live, KEY, isFinal)
      return { data: query.data, stream }
    },
    { wrapper },
  )
  return { view, fetched, answers: (next: typeof first) => (answer = next) }
}

async function flush() {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(0)
  })
}

beforeEach(() => {
  vi.useFakeTimers()
  FakeEventSource.opened = []
  vi.stubGlobal('EventSource', FakeEventSource)
})

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('useJobStream', () => {
  it('moves the progress from the events without a request and refetches on a step, a status and the end', async () => {
    const { view, fetched, answers } = page({ status: 'running', progress: { phase: 'starting the server' } })
    await flush()
    expect(fetched).toHaveBeenCalledTimes(1)
    const [source] = FakeEventSource.opened
    expect(source.url).toBe('/api/replays/3/events')
    act(() => {
      source.connect()
      source.emit('snapshot', '1-0', { status: 'running', progress: { phase: 'starting the server' } })
      source.emit('status', '2-0', { type: 'status', status: 'running', progress: { phase: 'round 1 of 2' } })
    })
    await flush()
    expect(fetched).toHaveBeenCalledTimes(1) // the snapshot matched, the progress was written in place
    expect(view.result.current.data?.progress).toEqual({ phase: 'round 1 of 2' })

    act(() => source.emit('schedule', '3-0', { type: 'schedule', rounds: 4, max_rounds: 6 }))
    await flush()
    expect(fetched).toHaveBeenCalledTimes(2)

    answers({ status: 'cancelled', progress: null })
    act(() => source.emit('status', '4-0', { type: 'status', status: 'cancelled' }))
    await flush()
    expect(fetched).toHaveBeenCalledTimes(3)
    expect(view.result.current.data?.status).toBe('cancelled')
    expect(source.readyState).toBe(FakeEventSource.CLOSED)
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5 * FALLBACK_POLL_MS)
    })
    expect(FakeEventSource.opened).toHaveLength(1) // no reconnect after the end
    expect(fetched).toHaveBeenCalledTimes(3) // and no poll
  })

  it('polls slowly only while the stream is down', async () => {
    const { fetched } = page({ status: 'running', progress: null })
    await flush()
    const [source] = FakeEventSource.opened
    act(() => source.connect())
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3 * FALLBACK_POLL_MS)
    })
    expect(fetched).toHaveBeenCalledTimes(1) // connected: no polling

    act(() => source.fail())
    await act(async () => {
      await vi.advanceTimersByTimeAsync(FALLBACK_POLL_MS + 10)
    })
    expect(fetched).toHaveBeenCalledTimes(2) // down: one poll per FALLBACK_POLL_MS
    const reopened = FakeEventSource.opened[1]
    expect(reopened.url).toBe('/api/replays/3/events')
    act(() => reopened.connect())
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3 * FALLBACK_POLL_MS)
    })
    expect(fetched).toHaveBeenCalledTimes(2) // up again: the polling stopped
  })
})
