import type { Run } from '../../api/models'

export interface Progress {
  /** 1-based variant number being (or last) run; 0 if there are no variants. */
  variant: number
  variants: number
  /** Iterations done within that variant. */
  iteration: number
  iterations: number
  /** 0..1 over all variants. */
  fraction: number
  /** Interleaved runs: the round being (or last) run, 1-based, and the rounds planned (with any rounds
   * an auto-extension added); null for sequential runs. */
  round: number | null
  rounds: number | null
}

/** The round being run of an interleaved run: every round runs each variant's block (per group), so a
 * round is iterations_total / rounds iterations; a round just finished stays current until the next
 * variant starts. */
function roundOf(run: Run, done: number): { round: number; rounds: number } | null {
  if (run.schedule_kind !== 'interleaved') return null
  const rounds = Math.max(1, run.schedule?.rounds ?? run.rounds ?? 1)
  const perRound = run.iterations_total / rounds
  if (!(perRound > 0)) return { round: 1, rounds }
  let round = Math.floor(done / perRound) + 1
  if (done > 0 && done % perRound === 0 && run.current_variant == null) round -= 1
  return { round: Math.min(rounds, Math.max(1, round)), rounds }
}

/** Derive "round r of R · variant k of n" (interleaved) or "variant k of n · iteration i of N"
 * (sequential) from the run's counters. */
export function runProgress(run: Run): Progress {
  const n = run.variants.length
  const per = Math.max(0, run.iterations)
  const done = Math.max(0, run.iterations_done)
  const total = run.iterations_total > 0 ? run.iterations_total : n * per
  const fraction = total > 0 ? Math.min(1, done / total) : 0

  let index: number
  if (run.current_variant != null) {
    index = run.current_variant
  } else if (per > 0) {
    index = Math.floor(done / per)
    // A finished variant with no successor: stay on the last one.
    if (done > 0 && done % per === 0) index -= 1
  } else {
    index = 0
  }
  index = Math.min(Math.max(0, index), Math.max(0, n - 1))
  const iteration = Math.min(per, Math.max(0, done - index * per))
  const round = roundOf(run, done)
  return {
    variant: n === 0 ? 0 : index + 1,
    variants: n,
    iteration,
    iterations: per,
    fraction,
    round: round?.round ?? null,
    rounds: round?.rounds ?? null,
  }
}

/** Seconds since the run started and a naive estimate of the seconds left (elapsed / done x remaining). */
export function runTiming(run: Run, now: number): { elapsed: number | null; remaining: number | null } {
  if (!run.started_at) return { elapsed: null, remaining: null }
  const end = run.finished_at ? new Date(run.finished_at).getTime() : now
  const elapsed = Math.max(0, (end - new Date(run.started_at).getTime()) / 1000)
  const left = run.iterations_total - run.iterations_done
  const remaining =
    run.finished_at || run.iterations_done === 0 ? null : (elapsed / run.iterations_done) * Math.max(0, left)
  return { elapsed, remaining }
}
