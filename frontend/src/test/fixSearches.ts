// Fix search records for the front end's own tests (the fix search's pages, Find a fix), built from a
// few fields. Each builder casts its literal to the generated type: a field a newer API adds (the
// client regenerated) leaves these tests compiling, and a test that needs it passes it in `more`.
import type { FixCandidateRead, FixSearchRead, FixSearchResult, FixTrialRead, VerdictRead } from '../client'

/** `ratio` with an interval of +-`spread` around it. */
export const fixVerdict = (ratio: number, verdict: VerdictRead['verdict'] = 'no significant difference', spread = 0.1): VerdictRead => ({
  ratio, low: ratio * (1 - spread), high: ratio * (1 + spread), rounds: 5, method: 'paired rounds', mde: 0.05, verdict,
  reason: `${verdict} reason`,
})  // prettier-ignore

export const fixCandidate = (name: string, more: Partial<FixCandidateRead> = {}) =>
  ({
    name, source: 'differs', note: `${name} note`, settings: {}, apply: `SET STATEMENT ${name} FOR`, scope: 'statement',
    baseline: null, variant: null, extra: {}, indexes: {}, ...more,
  }) as FixCandidateRead  // prettier-ignore

export const fixTrial = (name: string, status: string, more: Partial<FixTrialRead> = {}) =>
  ({
    name, status, reason: `${status} reason`, ratio_to_baseline: null, ratio_to_variant: null, variant_to_baseline: null,
    results_equal: null, rounds: 0, statements: [], clock: 'server', ...more,
  }) as FixTrialRead  // prettier-ignore

export const fixResult = (outcome: string, more: Partial<FixSearchResult> = {}) =>
  ({ outcome, remedy: null, tried: 0, not_tried: [], rounds: 0, minutes: 0, ...more }) as FixSearchResult

/** Search 7 of replay 12, fingerprint "abc" on variant "new" against "old", running, nothing measured. */
export const fixSearch = (more: Partial<FixSearchRead> = {}) =>
  ({
    id: 7, replay_id: 12, fingerprint_id: 'abc', fingerprint: 'select 1', variant: 'new', baseline: 'old',
    status: 'running', error: null, rounds: 5, passes: 1, budget_rounds: 60, budget_minutes: 30, try_all: false,
    tolerance: 0.1, statement_timeout_s: 30, candidates: [], tried: [], progress: null, result: null, share_token: null,
    created_at: '2026-11-27T10:00:00Z', started_at: null, finished_at: null, ...more,
  }) as FixSearchRead  // prettier-ignore
