import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, waitFor } from '@testing-library/react'
import { MemoryRouter, Route, Routes } from 'react-router-dom'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { FingerprintResult, VerdictRead } from '../../client'
import { fixResult, fixSearch } from '../../test/fixSearches'
import { FindFix } from './FindFix'

const ratio = (verdict: VerdictRead['verdict']): VerdictRead => ({
  ratio: 1, low: 1, high: 1, rounds: 5, method: 'paired rounds', mde: 0.05, verdict, reason: '',
})  // prettier-ignore

// only what FindFix reads of a report row
const ROW = {
  fingerprint_id: 'abc',
  ratios: { a: ratio('no significant difference'), b: ratio('regression') },
} as unknown as FingerprintResult

const DONE = fixSearch({ id: 4, fingerprint_id: 'abc', variant: 'b', status: 'succeeded', result: fixResult('no remedy found') })

function show(canStart: boolean) {
  const posted: unknown[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      posted.push(await request.json())
      return Response.json({ id: 9 }, { status: 201 })
    }),
  )
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const view = render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/replays/12']}>
        <Routes>
          <Route
            path="/replays/12"
            element={<FindFix replayId={12} fingerprint={ROW} variants={['base', 'a', 'b']} baseline="base" searches={[DONE]} canStart={canStart} />}
          />
          <Route path="/fixsearches/:id" element={<p data-testid="landed">search page</p>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  )
  return { view, posted }
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('FindFix', () => {
  it('starts a search with the options set, on the slower variant by default, and goes to its page', async () => {
    const { view, posted } = show(true)
    expect(view.getByTestId('fix-search-link').textContent).toBe('fix search 4 on b: no remedy found')
    fireEvent.click(view.getByTestId('find-fix-button'))
    const form = view.getByTestId('find-fix-form')
    const field = (name: string) => form.querySelector<HTMLInputElement>(`[name=${name}]`)!
    expect(field('fix-variant').value).toBe('b')
    expect([...form.querySelectorAll('[name=fix-variant] option')].map((o) => o.textContent)).toEqual(['a', 'b (slower)'])
    fireEvent.change(field('fix-budget-rounds'), { target: { value: '20' } })
    fireEvent.change(field('fix-tolerance'), { target: { value: '25' } })
    fireEvent.click(field('fix-try-all'))
    fireEvent.change(field('fix-scope'), { target: { value: 'statement' } })
    fireEvent.click(view.getByTestId('find-fix-start'))
    await waitFor(() => expect(view.getByTestId('landed')).toBeTruthy())
    expect(posted).toEqual([
      { replay_id: 12, fingerprint_id: 'abc', variant: 'b', rounds: 5, budget_rounds: 20, budget_minutes: 30, tolerance: 0.25, try_all: true, scope: 'statement' },
    ])
  })

  it('shows a viewer the searches but no button', () => {
    const { view } = show(false)
    expect(view.getByTestId('fix-search-link')).toBeTruthy()
    expect(view.queryByTestId('find-fix-button')).toBeNull()
  })
})
