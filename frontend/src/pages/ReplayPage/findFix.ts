// The replay report's "Find a fix", apart from React: which variants a fingerprint can be fixed on
// (every variant but the baseline; those decided slower first) and each fingerprint's fix searches.
// Pure, so tested without a browser (findFix.test.ts).
import type { FingerprintResult, FixSearchCreate, FixSearchRead } from '../../client'

export interface FixVariant {
  name: string
  /** Its ratio to the baseline was decided a regression (the replay's verdict). */
  slower: boolean
}

/** The variants a fix search may take for `fingerprint` (the API refuses the baseline): in the
 * report's order, slower ones flagged; the default choice is the first slower, else the first. */
export function fixVariants(fingerprint: Pick<FingerprintResult, 'ratios'>, variants: string[], baseline: string): FixVariant[] {
  return variants
    .filter((name) => name !== baseline)
    .map((name) => ({ name, slower: fingerprint.ratios[name]?.verdict === 'regression' }))
}

export function defaultFixVariant(choices: FixVariant[]): string {
  return (choices.find((c) => c.slower) ?? choices[0])?.name ?? ''
}

/** A replay's fix searches by fingerprint id, each list in the order given (the API's: newest first). */
export function searchesByFingerprint(searches: readonly FixSearchRead[]): Map<string, FixSearchRead[]> {
  const out = new Map<string, FixSearchRead[]>()
  for (const search of searches) {
    const list = out.get(search.fingerprint_id) ?? []
    list.push(search)
    out.set(search.fingerprint_id, list)
  }
  return out
}

/** A search's state in a few words for the report's row: its outcome once it has one ("restored by
 * X", "no remedy found"...), else its status. */
export function searchState(search: Pick<FixSearchRead, 'status' | 'result'>): string {
  const result = search.result
  if (!result) return search.status
  return result.outcome === 'restored' && result.remedy ? `restored by ${result.remedy}` : result.outcome
}

/** The API's defaults (backend fixsearch/schemas.py FixSearchCreate), the form's first values. */
export const FIX_DEFAULTS = { rounds: 5, budgetRounds: 60, budgetMinutes: 30, tolerancePct: 10, tryAll: false, scope: 'both' as FixScope }

export type FixScope = NonNullable<FixSearchCreate['scope']>

/** The scopes a search may take (FixSearchCreate.scope), in words for the form. */
export const FIX_SCOPES: [FixScope, string][] = [
  ['both', 'statement-level, and a restoring setting as a global one too (its side effects checked)'],
  ['statement', 'statement-level only (hints, SET_VAR / SET STATEMENT)'],
  ['global', 'settings as global remedies only (side effects checked on the whole replay)'],
]
