// The run page's first two calls, as query options shared by the page and the boot preload (main.tsx):
// the results (series downsampled to the chart's width) and, for a finished run, its stored verdict table.
import type { QueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { isFinal } from '../../api/models'
import { chartWidth } from '../../charts/width'
import type { ComparisonSettings } from '../ComparePage/ComparisonControls'

/** The verdict table's query as the section first asks it (stored at run end for a finished run). */
export const DEFAULT_SETTINGS: ComparisonSettings = { baseline: null, warmup: 0, threshold: 0.05 }

const VERDICTS_FRESH_MS = 60_000
// How long the results wait for a finished run's stored verdict table (~15 ms to answer; a run finished
// before it was stored computes it on first read, and its chart does not wait for that)
const VERDICTS_WAIT_MS = 150

/** Query key and function of the comparison table of `runId` at `settings` (the results query prefetches
 * the default one as soon as it knows the run is final, before the charts render). */
export function verdictsQuery(runId: number, settings: ComparisonSettings) {
  return {
    queryKey: ['compare', [runId], settings, 'table'],
    queryFn: () => api.compare({ runs: [runId], ...settings }, false),
    // a finished run's table changes only when the run does (RunPage invalidates 'compare' then): the
    // section reuses the prefetched answer instead of asking again when it mounts
    staleTime: VERDICTS_FRESH_MS,
  }
}

/** Query key and function of run `id`'s results (GET /api/runs/{id}/results?width=<chart width>). */
export function resultsQuery(queryClient: QueryClient, id: string) {
  return {
    queryKey: ['results', id],
    queryFn: async () => {
      const loaded = await api.results(id, chartWidth())
      // a finished run's verdict table is stored: ask for it now, and give it a moment, so the chart
      // and the verdicts draw in one render rather than the verdicts in a second long task after it
      if (isFinal(loaded.run.status)) {
        const verdicts = queryClient.prefetchQuery(verdictsQuery(loaded.run.id, DEFAULT_SETTINGS))
        await Promise.race([verdicts, new Promise((resolve) => window.setTimeout(resolve, VERDICTS_WAIT_MS))])
      }
      return loaded
    },
  }
}

/** A run page opened directly (a link, a reload): its chunk and its results are asked for at boot, beside
 * the sign-in check, rather than one after the other (bench/open_large_run.py). The page's own query
 * finds the call in flight or its answer (RESULTS_FRESH_MS) and does not ask again. */
export function preloadRunPage(queryClient: QueryClient, pathname: string): void {
  const opened = /^\/runs\/(\d+)$/.exec(pathname)
  if (!opened) return
  void import('./RunPage')
  void queryClient.prefetchQuery(resultsQuery(queryClient, opened[1]))
}

/** How long a results answer counts as fresh: the page mounting right after the preload reuses it;
 * a live run's later changes come over SSE and invalidate it. */
export const RESULTS_FRESH_MS = 10_000
