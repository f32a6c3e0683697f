// Query options of comparisons (GET /api/compare): a run's verdict table and the compare page's
// side-by-side view, keyed by the runs, the settings and whether the series come along.
import { queryOptions } from '@tanstack/react-query'
import { api } from '../api/client'

/** What the comparison controls change: the baseline variant's key (null: the first), warm-up iterations
 * excluded, the verdict threshold as a fraction (0.05 = 5 %). */
export interface ComparisonSettings {
  baseline: string | null
  warmup: number
  threshold: number
}

/** The verdict table's query as a run's section first asks it (stored at run end for a finished run). */
export const DEFAULT_SETTINGS: ComparisonSettings = { baseline: null, warmup: 0, threshold: 0.05 }

/** Every comparison: invalidate when a run they may include ends. */
export const COMPARE_KEY = ['compare'] as const

const VERDICTS_FRESH_MS = 60_000

/** The comparison of `runs` at `settings`; with `series` the per-iteration series for the charts. */
export function comparisonQuery(runs: number[], settings: ComparisonSettings, series: boolean) {
  return queryOptions({
    queryKey: [...COMPARE_KEY, runs, settings, series ? 'series' : 'table'] as const,
    queryFn: () => api.compare({ runs, ...settings }, series),
  })
}

/** The comparison table of run `runId` at `settings`, without series (the run results' query prefetches
 * the default one as soon as it knows the run is final, before the charts render). */
export function verdictsQuery(runId: number, settings: ComparisonSettings) {
  return queryOptions({
    ...comparisonQuery([runId], settings, false),
    // a finished run's table changes only when the run does (the run page invalidates COMPARE_KEY then):
    // the section reuses the prefetched answer instead of asking again when it mounts
    staleTime: VERDICTS_FRESH_MS,
  })
}
