// Query options of the runs: the list, and per run its results, group medians, statements, probes,
// context, variables diff and share links. One key shape per resource, ids always numbers, so a call
// made on one page and an invalidation made on another meet in the cache.
import { queryOptions } from '@tanstack/react-query'
import { api, type RunFilters } from '../api/client'
import { isFinal } from '../api/models'
import { chartWidth } from '../charts/width'
import { DEFAULT_SETTINGS, verdictsQuery } from './compare'

// How long the results wait for a finished run's stored verdict table (~15 ms to answer; a run finished
// before it was stored computes it on first read, and its chart does not wait for that)
const VERDICTS_WAIT_MS = 150

/** How long a results answer counts as fresh: the run page mounting right after the boot preload reuses
 * it; a live run's later changes come over SSE and invalidate it. */
export const RESULTS_FRESH_MS = 10_000

/** Every run list (the runs page, the template page's recent runs): invalidate after a run changes. */
export const RUN_LISTS_KEY = ['runs'] as const

/** Everything cached about run `id` (its results, groups, statements, probes, context, shares). */
export function runKey(id: number) {
  return ['run', id] as const
}

/** A page of runs, newest first (GET /api/runs?limit&offset&filters). */
export function runsQuery(limit: number, offset: number, filters: RunFilters = {}) {
  return queryOptions({
    queryKey: [...RUN_LISTS_KEY, { limit, offset, filters }] as const,
    queryFn: () => api.runs(limit, offset, filters),
  })
}

/** Run `id`'s results (GET /api/runs/{id}/results?width=<chart width>): the run, its series downsampled to
 * the chart's width, the summary. The run page and the template page share it. */
export function runResultsQuery(id: number) {
  return queryOptions({
    queryKey: [...runKey(id), 'results'] as const,
    queryFn: async ({ client }) => {
      const loaded = await api.results(id, chartWidth())
      // a finished run's verdict table is stored: ask for it now, and give it a moment, so the chart
      // and the verdicts draw in one render rather than the verdicts in a second long task after it
      if (isFinal(loaded.run.status)) {
        const verdicts = client.prefetchQuery(verdictsQuery(loaded.run.id, DEFAULT_SETTINGS))
        await Promise.race([verdicts, new Promise((resolve) => window.setTimeout(resolve, VERDICTS_WAIT_MS))])
      }
      return loaded
    },
  })
}

/** Run `id`'s per-group medians (GET /api/runs/{id}/groups); with `iterations` every iteration too. */
export function runGroupsQuery(id: number, iterations: boolean) {
  return queryOptions({
    queryKey: [...runKey(id), 'groups', iterations ? 'iterations' : 'medians'] as const,
    queryFn: () => api.groups(id, iterations),
  })
}

/** Run `id`'s per-statement medians (GET /api/runs/{id}/statements). */
export function runStatementsQuery(id: number) {
  return queryOptions({ queryKey: [...runKey(id), 'statements'] as const, queryFn: () => api.statements(id) })
}

/** Run `id`'s server probes, downsampled to the chart's width (GET /api/runs/{id}/probes?width). */
export function runProbesQuery(id: number) {
  return queryOptions({
    queryKey: [...runKey(id), 'probes'] as const,
    queryFn: () => api.probes(id, chartWidth()),
  })
}

/** What produced run `id`'s results: versions, host, schedule (GET /api/runs/{id}/context). */
export function runContextQuery(id: number) {
  return queryOptions({ queryKey: [...runKey(id), 'context'] as const, queryFn: () => api.context(id) })
}

/** The server variables that differ between run `id`'s variants (GET /api/runs/{id}/variables-diff). */
export function runVariablesDiffQuery(id: number) {
  return queryOptions({
    queryKey: [...runKey(id), 'variables-diff'] as const,
    queryFn: () => api.variablesDiff(id),
  })
}

/** Run `id`'s share links, revoked ones included (GET /api/shares?run_id). */
export function runSharesQuery(id: number) {
  return queryOptions({ queryKey: [...runKey(id), 'shares'] as const, queryFn: () => api.shares(id) })
}
