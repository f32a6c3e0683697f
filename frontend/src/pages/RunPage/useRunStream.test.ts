import { act, renderHook } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FakeEventSource } from '../../test/fakeEventSource'
import { makeRun } from '../../test/runs'
import { useRunStream } from './useRunStream'

const iteration = (variant_index: number, n: number, elapsed_s: number) => ({
  type: 'iteration',
  variant_index,
  variant: `v${variant_index}`,
  iteration: n,
  elapsed_s,
  published_at: Date.now() / 1000,
})

beforeEach(() => {
  vi.useFakeTimers()
  FakeEventSource.opened = []
  vi.stubGlobal('EventSource', FakeEventSource)
})

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

function settle() {
  act(() => {
    vi.advanceTimersByTime(250) // past the hook's render throttle
  })
}

describe('useRunStream', () => {
  it('draws the snapshot, then live iterations, each (variant, iteration) once', () => {
    const { result } = renderHook(() => useRunStream('7', true, () => {}))
    const [source] = FakeEventSource.opened
    expect(source.url).toBe('/api/runs/7/events')
    act(() => {
      source.connect()
      source.emit('snapshot', '1-0', { run: makeRun(), points: [[0, 1, 0.5], [0, 2, 0.4]] })
      source.emit('iteration', '2-0', iteration(0, 3, 0.3))
      source.emit('iteration', '3-0', iteration(0, 2, 0.9)) // a repeat (a worker retry)
      source.emit('iteration', '4-0', iteration(1, 1, 0.7))
    })
    settle()
    const [first, second] = result.current.series
    expect(first.points.map((p) => p.iteration)).toEqual([1, 2, 3])
    expect(second.points).toEqual([{ iteration: 1, elapsed_s: 0.7 }])
    expect(result.current.stats).toEqual({ received: 4, duplicates: 1, connections: 1 })
    expect(result.current.run?.iterations_done).toBe(4)
    expect(result.current.run?.current_variant).toBe(1)
  })

  it('resumes after the last event id when the connection closes, without drawing a point twice', () => {
    const { result } = renderHook(() => useRunStream('7', true, () => {}))
    const [first] = FakeEventSource.opened
    act(() => {
      first.connect()
      first.emit('snapshot', '1-0', { run: makeRun(), points: [[0, 1, 0.5]] })
      first.emit('iteration', '5-0', iteration(0, 2, 0.4))
      first.emit('cursor', '6-0', {})
      first.fail()
    })
    expect(result.current.connected).toBe(false)
    act(() => {
      vi.advanceTimersByTime(1000)
    })
    const second = FakeEventSource.opened[1]
    expect(second.url).toBe('/api/runs/7/events?last_event_id=6-0')
    act(() => {
      second.connect()
      second.emit('iteration', '5-0', iteration(0, 2, 0.4)) // sent again around the cut
      second.emit('iteration', '7-0', iteration(0, 3, 0.3))
    })
    settle()
    expect(result.current.series[0].points.map((p) => p.iteration)).toEqual([1, 2, 3])
    expect(result.current.stats).toEqual({ received: 3, duplicates: 1, connections: 2 })
    expect(result.current.connected).toBe(true)
  })

  it('stops at a final status, applies it and calls onFinal once', () => {
    const onFinal = vi.fn()
    const { result } = renderHook(() => useRunStream('7', true, onFinal))
    const [source] = FakeEventSource.opened
    act(() => {
      source.connect()
      source.emit('snapshot', '1-0', { run: makeRun(), points: [] })
      source.emit('status', '2-0', { type: 'status', status: 'running', progress: { phase: 'loading rows' } })
    })
    settle()
    expect(result.current.run?.progress).toEqual({ phase: 'loading rows' })
    expect(onFinal).not.toHaveBeenCalled()
    act(() => {
      source.emit('status', '3-0', { type: 'status', status: 'failed', error: 'server died' })
    })
    settle()
    expect(onFinal).toHaveBeenCalledTimes(1)
    expect(source.readyState).toBe(FakeEventSource.CLOSED)
    expect(result.current.run?.status).toBe('failed')
    expect(result.current.run?.error).toBe('server died')
    act(() => {
      vi.advanceTimersByTime(5000)
    })
    expect(FakeEventSource.opened).toHaveLength(1) // no reconnect after the end
  })

  it('opens nothing while disabled', () => {
    renderHook(() => useRunStream('7', false, () => {}))
    expect(FakeEventSource.opened).toHaveLength(0)
  })
})
