import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, waitFor } from '@testing-library/react'
import { MemoryRouter, Route, Routes } from 'react-router-dom'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { AssessForm } from './AssessForm'

function show(source: { target: string } | { capture_id: number }, mayAct = true) {
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
      <MemoryRouter initialEntries={['/from']}>
        <Routes>
          <Route path="/from" element={<AssessForm source={source} mayAct={mayAct} />} />
          <Route path="/assessments/:id" element={<p data-testid="landed">assessment page</p>} />
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

describe('AssessForm', () => {
  it("starts an assessment of the team's server with the versions, baseline and budget, and goes to its page", async () => {
    const { view, posted } = show({ target: 'staging' })
    fireEvent.click(view.getByTestId('assess-button'))
    const form = view.getByTestId('assess-form')
    const field = (name: string) => form.querySelector<HTMLInputElement>(`[name=${name}]`)!
    fireEvent.change(field('assess-versions'), { target: { value: 'mariadb-11.8, mysql-9.7' } })
    fireEvent.change(field('assess-baseline'), { target: { value: 'mariadb-10.11' } })
    fireEvent.change(field('assess-budget'), { target: { value: '30' } })
    fireEvent.click(view.getByTestId('assess-start'))
    await waitFor(() => expect(view.getByTestId('landed')).toBeTruthy())
    expect(posted).toEqual([
      { target: 'staging', versions: ['mariadb-11.8', 'mysql-9.7'], baseline: 'mariadb-10.11', budget_min: 30, fix_tolerance: 0.1 },
    ])
  })

  it('assesses a capture without a baseline (no replay) and is not offered to a viewer', async () => {
    const { view, posted } = show({ capture_id: 4 })
    fireEvent.click(view.getByTestId('assess-button'))
    fireEvent.change(view.getByTestId('assess-form').querySelector('[name=assess-versions]')!, { target: { value: 'mysql-9.7' } })
    fireEvent.click(view.getByTestId('assess-start'))
    await waitFor(() =>
      expect(posted).toEqual([{ capture_id: 4, versions: ['mysql-9.7'], baseline: null, budget_min: 60, fix_tolerance: 0.1 }]),
    )
    cleanup()
    expect(show({ capture_id: 4 }, false).view.queryByTestId('assess-button')).toBeNull()
  })

  it('takes the fix tolerance in per cent, sends the API its fraction, and names the field when out of bounds', async () => {
    const { view, posted } = show({ capture_id: 4 })
    fireEvent.click(view.getByTestId('assess-button'))
    const form = view.getByTestId('assess-form')
    const field = (name: string) => form.querySelector<HTMLInputElement>(`[name=${name}]`)!
    expect(field('assess-fix-tolerance').value).toBe('10') // the API's default, 0.10
    expect(field('assess-fix-tolerance').closest('label')!.textContent).toMatch(/^Fix tolerance \(%\)/)
    fireEvent.change(field('assess-versions'), { target: { value: 'mariadb-11.8' } })
    for (const wrong of ['150', '0', '']) {
      fireEvent.change(field('assess-fix-tolerance'), { target: { value: wrong } })
      expect(view.getByTestId('assess-fix-tolerance-error').textContent).toBe(
        "Fix tolerance (%) must be between 1 and 100 (per cent of the old version's time)",
      )
      expect((view.getByTestId('assess-start') as HTMLButtonElement).disabled).toBe(true)
    }
    fireEvent.change(field('assess-fix-tolerance'), { target: { value: '25' } })
    expect(view.queryByTestId('assess-fix-tolerance-error')).toBeNull()
    fireEvent.click(view.getByTestId('assess-start'))
    await waitFor(() => expect(view.getByTestId('landed')).toBeTruthy())
    expect(posted).toEqual([{ capture_id: 4, versions: ['mariadb-11.8'], baseline: null, budget_min: 60, fix_tolerance: 0.25 }])
  })
})
