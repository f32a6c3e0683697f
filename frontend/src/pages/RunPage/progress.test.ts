import { describe, expect, it } from 'vitest'
import { makeRun } from '../../test/runs'
import { runProgress, runTiming } from './progress'

describe('run progress', () => {
  it('reads the variant from current_variant and the iteration within it', () => {
    const p = runProgress(makeRun({ current_variant: 1, iterations_done: 13 }))
    expect(p).toEqual({ variant: 2, variants: 2, iteration: 3, iterations: 10, fraction: 0.65 })
  })

  it('without current_variant, stays on a finished variant rather than naming the next', () => {
    expect(runProgress(makeRun({ iterations_done: 10 })).variant).toBe(1)
    expect(runProgress(makeRun({ iterations_done: 11 })).variant).toBe(2)
  })

  it('never passes 100% nor the last variant', () => {
    const p = runProgress(makeRun({ iterations_done: 25, current_variant: 5 }))
    expect(p.fraction).toBe(1)
    expect(p.variant).toBe(2)
  })
})

describe('time left', () => {
  const started = Date.parse('2026-01-01T00:00:00Z')

  it('estimates the seconds left from the pace so far', () => {
    const t = runTiming(makeRun({ iterations_done: 5 }), started + 10_000)
    expect(t.elapsed).toBe(10)
    expect(t.remaining).toBe(30) // 2 s per iteration x 15 left
  })

  it('has no estimate before the first iteration nor after the end', () => {
    expect(runTiming(makeRun(), started + 10_000).remaining).toBeNull()
    const done = makeRun({ iterations_done: 20, finished_at: '2026-01-01T00:01:00Z' })
    expect(runTiming(done, started + 999_000)).toEqual({ elapsed: 60, remaining: null })
  })

  it('has neither before the run started', () => {
    expect(runTiming(makeRun({ started_at: null }), started)).toEqual({ elapsed: null, remaining: null })
  })
})
