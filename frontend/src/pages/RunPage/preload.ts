// A run page opened directly (a link, a reload): its chunk and its results are asked for at boot, beside
// the sign-in check, rather than one after the other (bench/open_large_run.py). The page's own query
// finds the call in flight or its answer (RESULTS_FRESH_MS) and does not ask again.
import type { QueryClient } from '@tanstack/react-query'
import { runResultsQuery } from '../../queries/runs'

/** Start loading the run page's chunk and run `id`'s results when `pathname` is `/runs/<id>`. */
export function preloadRunPage(queryClient: QueryClient, pathname: string): void {
  const opened = /^\/runs\/(\d+)$/.exec(pathname)
  if (!opened) return
  void import('./RunPage')
  void queryClient.prefetchQuery(runResultsQuery(Number(opened[1])))
}
