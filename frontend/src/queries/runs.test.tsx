import { QueryClient, QueryClientProvider, type QueryKey } from '@tanstack/react-query'
import { cleanup, render, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { RunPage } from '../pages/RunPage/RunPage'
import { WorkloadPage } from '../pages/WorkloadPage/WorkloadPage'
import { jsonAnswer } from '../test/api'
import { atRoute } from '../test/router'
import { makeRun } from '../test/runs'
import { runResultsQuery } from './runs'

// What the API answers in these tests: a template with cases (so its page asks for the latest run's
// results) and one succeeded run of it, #7; everything else is a 404 (the pages show an error box).
const WORKLOAD = {
  slug: 'insert-truncate', title: 'Insert and truncate', article: 'a', description: 'd', setup: '',
  server_options: {}, published: [], cases: [{ name: 'c' }], baseline_point: 'p', sweep: null,
  contrast_cases: [], latest_run_id: null,
}
const RUNS = { items: [makeRun({ status: 'succeeded' })], total: 1 }

const answer = jsonAnswer((path) => (path === '/api/workloads/insert-truncate' ? WORKLOAD : path === '/api/runs' ? RUNS : null))

/** The keys of the run-results queries `page` asks for, opened at `url` under its route `path`. */
async function resultsKeysOf(page: ReactNode, url: string, path: string): Promise<QueryKey[]> {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  render(<QueryClientProvider client={client}>{atRoute(page, url, path)}</QueryClientProvider>)
  const keys = () =>
    client
      .getQueryCache()
      .findAll()
      .filter((query) => !query.isDisabled()) // the template page's placeholder before it knows the run
      .map((query) => query.queryKey)
      .filter((key) => key.at(-1) === 'results')
  await waitFor(() => expect(keys()).not.toHaveLength(0))
  return keys()
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('the results of a run are one cache entry for every page', () => {
  it("keys the run page's and the template page's results of run 7 the same", async () => {
    vi.stubGlobal('fetch', vi.fn(async (request: Request) => answer(request)))
    const runPage = await resultsKeysOf(<RunPage />, '/runs/7', '/runs/:id') // the id from the URL, a string
    cleanup()
    // /workloads/insert-truncate: the latest succeeded run's id, a number from the runs list
    const templatePage = await resultsKeysOf(<WorkloadPage />, '/workloads/insert-truncate', '/workloads/:slug')
    expect(runPage).toEqual([runResultsQuery(7).queryKey])
    expect(templatePage).toEqual(runPage)
  })

  it('reaches the cached results with an invalidation made from a numeric id', async () => {
    const client = new QueryClient()
    client.setQueryData(runResultsQuery(7).queryKey, { run: makeRun(), series: [], summary: [], contrasts: { within: [], across: [] } } as never)
    await client.invalidateQueries(runResultsQuery(Number('7')))
    expect(client.getQueryState(runResultsQuery(7).queryKey)?.isInvalidated).toBe(true)
  })
})
