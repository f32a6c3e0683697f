import { describe, expect, it } from 'vitest'
import type { Run } from '../../api/models'
import { makeRun } from '../../test/runs'
import { runProgress, runTiming } from './progress'

describe('run progress', () => {
  it('reads the variant from current_variant and the iteration within it', () => {
    const p = runProgress(makeRun({ current_variant: 1, iterations_done: 13 }))
    expect(p).toEqual({
      variant: 2,
      variants: 2,
      iteration: 3,
      iterations: 10,
      fraction: 0.65,
      round: null,
      rounds: null,
    })
  })

  it('counts rounds of an interleaved run, extended rounds included', () => {
    // 2 variants x 10 rounds x 5-iteration blocks: a round is 10 iterations
    const run = (over: Partial<Run>) =>
      makeRun({ schedule_kind: 'interleaved', rounds: 10, block: 5, iterations: 50, iterations_total: 100, ...over })
    expect(runProgress(run({ iterations_done: 0, current_variant: 1 })).round).toBe(1)
    expect(runProgress(run({ iterations_done: 37, current_variant: 0 }))).toMatchObject({ round: 4, rounds: 10 })
    // a round just finished stays current until a variant of the next one starts
    expect(runProgress(run({ iterations_done: 40 })).round).toBe(4)
    expect(runProgress(run({ iterations_done: 40, current_variant: 1 })).round).toBe(5)
    expect(runProgress(run({ iterations_done: 100 })).round).toBe(10)
    // an auto-extension to 15 rounds: the schedule's rounds and the larger total
    const schedule = { kind: 'interleaved' as const, seed: 1, rounds: 15, block: 5, order: [] }
    expect(runProgress(run({ schedule, iterations_total: 150, iterations_done: 120 }))).toMatchObject({
      round: 12,
      rounds: 15,
    })
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
