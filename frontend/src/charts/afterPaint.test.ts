import { act, renderHook } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useAfterPaint } from './afterPaint'

describe('useAfterPaint', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'requestAnimationFrame', 'cancelAnimationFrame'] })
  })
  afterEach(() => vi.useRealTimers())

  it('turns true only after a frame and the task after it, once ready', () => {
    const { result, rerender } = renderHook(({ ready }) => useAfterPaint(ready), { initialProps: { ready: false } })
    act(() => vi.advanceTimersByTime(100))
    expect(result.current).toBe(false) // not ready: no frame is waited for
    rerender({ ready: true })
    expect(result.current).toBe(false)
    act(() => vi.advanceTimersToNextFrame())
    expect(result.current).toBe(false) // the frame's callback only queues the task
    act(() => vi.advanceTimersByTime(1))
    expect(result.current).toBe(true)
    rerender({ ready: true })
    expect(result.current).toBe(true)
  })
})
