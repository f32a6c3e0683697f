// What the fix search's page shows, apart from React: its candidates in the order tried, beside each
// its trial (fixsearch/search.py Trial), then those not tried; the outcome in words; the remedy that
// restores with what to apply. Pure, so tested without a browser (rows.test.ts).
import { isFinal } from '../../api/models'
import type { FixCandidateRead, FixSearchRead, FixSearchResult, FixTrialRead } from '../../client'

/** A trial's status, or where an untried candidate stands: still to come while the search runs, "not
 * tried" once it ended (the budget ran out, a remedy restored first, or it was cancelled). */
export type RowState = FixTrialRead['status'] | 'waiting' | 'not tried'

export interface CandidateRow {
  /** 1-based place in the order tried; null when not tried. */
  order: number | null
  name: string
  /** Null only for a trial whose candidate the record no longer lists (kept, not hidden). */
  candidate: FixCandidateRead | null
  trial: FixTrialRead | null
  state: RowState
  /** This row's candidate is the remedy the search found. */
  remedy: boolean
}

/** Every candidate once: the trials in the order measured (the server's order: evidence first), then
 * the candidates not measured, in their evidence order. */
export function candidateRows(search: Pick<FixSearchRead, 'candidates' | 'tried' | 'status' | 'result'>): CandidateRow[] {
  const byName = new Map(search.candidates.map((c) => [c.name, c]))
  const remedy = search.result?.remedy ?? null
  const measured = new Set(search.tried.map((t) => t.name))
  const tried: CandidateRow[] = search.tried.map((trial, i) => ({
    order: i + 1,
    name: trial.name,
    candidate: byName.get(trial.name) ?? null,
    trial,
    state: trial.status,
    remedy: trial.name === remedy,
  }))
  const left: RowState = isFinal(search.status) ? 'not tried' : 'waiting'
  const rest: CandidateRow[] = search.candidates
    .filter((c) => !measured.has(c.name))
    .map((candidate) => ({ order: null, name: candidate.name, candidate, trial: null, state: left, remedy: false }))
  return [...tried, ...rest]
}

/** How many rows are in each state ("3 does not restore, 1 restores"), in the order first met. */
export function stateCounts(rows: CandidateRow[]): [RowState, number][] {
  const counts = new Map<RowState, number>()
  for (const row of rows) counts.set(row.state, (counts.get(row.state) ?? 0) + 1)
  return [...counts]
}

/** The outcome in one sentence (fixsearch/search.py OutcomeName), with the rounds and minutes it took. */
export function outcomeSentence(result: FixSearchResult): string {
  // under a minute in seconds: a small search's "0.0 min" says nothing
  const took = result.minutes < 1 ? `${Math.round(result.minutes * 60)} s` : `${result.minutes.toFixed(1)} min`
  const spent = `${result.tried} candidate${result.tried === 1 ? '' : 's'} tried, ${result.rounds} rounds, ${took}`
  switch (result.outcome) {
    case 'restored': {
      const global = result.global_remedy && result.global_remedy !== result.remedy ? `; as a global setting by ${result.global_remedy}` : ''
      return `Restored by ${result.remedy ?? result.global_remedy ?? 'a remedy'}${global} (${spent}).`
    }
    case 'no remedy found':
      return `No remedy found: none of the candidates tried restores the baseline's time with equal results (${spent}).`
    case 'out of budget': {
      // what more would have given each candidate left its first look (search.py Outcome.said)
      const more = result.more_rounds ? `; about ${result.more_rounds} more rounds and ${result.more_minutes.toFixed(1)} more minutes would have tried them` : ''
      return `Out of budget before a remedy restored: ${result.not_tried.length} candidate${result.not_tried.length === 1 ? '' : 's'} not tried (${spent})${more}.`
    }
    case 'cancelled':
      return `Cancelled (${spent}).`
    default:
      return `${result.outcome} (${spent}).`
  }
}

/** A remedy that restores, with what to apply: its candidate (the settings, its note) and its trial
 * (scope, the hint / SET STATEMENT prefix / option line, the statements as rewritten, plans before and
 * after, a global one's side effects). `which`: the result's `remedy` (the first that restores; under
 * scope "both" the statement-level one) or `global_remedy` (the first global one, its side effects
 * checked on the whole replay). Null when none restored. */
export function restoringRemedy(
  search: Pick<FixSearchRead, 'candidates' | 'tried' | 'result'>,
  which: 'remedy' | 'global_remedy' = 'remedy',
): CandidateRow | null {
  const name = search.result?.[which]
  if (!name) return null
  const trial = search.tried.find((t) => t.name === name) ?? null
  const candidate = search.candidates.find((c) => c.name === name) ?? null
  if (!trial && !candidate) return null
  return { order: null, name, candidate, trial, state: trial?.status ?? 'restores', remedy: true }
}

/** What to apply for a row: the trial's (what was measured; a global twin has no candidate of its
 * own), else the candidate's. The row shows its start; the whole of it is in the row's details when
 * longer (rowDetails). */
export function applyOf(row: Pick<CandidateRow, 'candidate' | 'trial'>): string | null {
  return row.trial?.apply || row.candidate?.apply || null
}

/** A row's scope: "statement" (a hint or SET STATEMENT, this statement only) or "global" (an option
 * line or SET GLOBAL, its side effects checked on the whole replay). */
export function scopeOf(row: Pick<CandidateRow, 'candidate' | 'trial'>): string {
  return row.trial?.scope ?? row.candidate?.scope ?? 'statement'
}

// the fields the page shows in their own columns
const KNOWN_CANDIDATE = new Set(['name', 'source', 'note', 'settings', 'apply', 'scope', 'baseline', 'variant', 'indexes', 'extra'])
const KNOWN_TRIAL = new Set([
  'name', 'status', 'reason', 'ratio_to_baseline', 'ratio_to_variant', 'variant_to_baseline', 'results_equal', 'rounds',
  'statements', 'clock', 'scope', 'apply', 'set_global', 'side_effects', 'plan_before', 'plan_after', 'plan_error',
  'wrapper_cost', 'wrapper_us', 'plan_identity',
])

/** A candidate's and its trial's fields this page does not show by name (what a newer API adds: a
 * global remedy's side effects, the plans before and after, its option line...), as [key, value] for
 * FieldValue.tsx to show as they come; the candidate's `extra` opened; empty values left out. */
export function otherFields(row: Pick<CandidateRow, 'candidate' | 'trial'>): [string, unknown][] {
  const out: [string, unknown][] = []
  const add = (record: object | null, known: Set<string>) => {
    for (const [key, value] of Object.entries(record ?? {})) {
      if (known.has(key) || isEmpty(value)) continue
      out.push([key, value])
    }
  }
  const apply = applyOf(row)
  if (apply && apply.length > 160) out.push(['apply (whole)', apply])
  add(row.candidate, KNOWN_CANDIDATE)
  add(row.candidate?.extra ?? null, new Set())
  add(row.trial, KNOWN_TRIAL)
  return out
}

function isEmpty(value: unknown): boolean {
  if (value == null || value === '') return true
  if (Array.isArray(value)) return value.length === 0
  if (typeof value === 'object') return Object.keys(value).length === 0
  return false
}

/** Whether the page's copy lags what its stream's progress says: a `status` event carries progress
 * only (written into the cached copy, api/streaming.py), while the worker wrote new trials or the
 * candidates with it; then the page asks for the search again. */
export function lagsProgress(search: Pick<FixSearchRead, 'progress' | 'tried' | 'candidates'>): boolean {
  const progress = search.progress
  if (!progress) return false
  if (progress.tried != null && progress.tried !== search.tried.length) return true
  return progress.phase === 'measuring' && search.candidates.length === 0
}
