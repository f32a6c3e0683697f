import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { VerdictRead } from '../../client'
import { atRoute } from '../../test/router'
import { FixSearchSharePage } from './FixSearchSharePage'
import { fixCandidate, fixResult, fixSearch, fixTrial, fixVerdict } from '../../test/fixSearches'

const QUERY = 'SELECT COUNT(*) FROM o WHERE o.k IN (SELECT i.c FROM i)'
const REFUSAL = "ERROR 1064: You have an error in your SQL syntax near 'FORCE INDEX (k)'"

const ratio = (value: number, verdict: VerdictRead['verdict']) => fixVerdict(value, verdict)
const candidate = (name: string, source: string, apply: string) => fixCandidate(name, { source, apply })

// Fields a newer API adds to a trial (a plan after the remedy, a global check's side effects): shown
// as they come, without this page knowing their shape.
const NEWER = {
  plan_after: [{ table: 'i', access_type: 'ALL', key: null, rows: 500 }],
  side_effects: { said: 'no side effect', checked: [{ fingerprint: 'select 1', ratio: ratio(1.02, 'no significant difference') }] },
}
const RESTORES = Object.assign(
  fixTrial('materialization=on,semijoin=on', 'restores', {
    ratio_to_baseline: ratio(1.01, 'no significant difference'), ratio_to_variant: ratio(0.05, 'improvement'),
    variant_to_baseline: ratio(20, 'regression'), results_equal: true, rounds: 5,
    statements: [`SET STATEMENT optimizer_switch='materialization=on,semijoin=on' FOR ${QUERY}`],
  }),
  NEWER,
)  // prettier-ignore

// A finished search as GET /api/public/fixsearches/{token} answers it: a refused plan hint, a flag
// that does not restore, the one that does; a lever left untried.
const SHARED = fixSearch({
  fingerprint: 'select count (*) from o where o.k in (select i.c from i)', variant: 'no semijoin', baseline: 'mariadb-11.8',
  status: 'succeeded',
  candidates: [
    candidate('index k', 'plan', 'FORCE INDEX (k)'),
    candidate('semijoin=on', 'differs', "SET STATEMENT optimizer_switch='semijoin=on' FOR"),
    candidate('materialization=on,semijoin=on', 'differs', "SET STATEMENT optimizer_switch='materialization=on,semijoin=on' FOR"),
    candidate('optimizer_prune_level=1', 'lever', 'SET STATEMENT optimizer_prune_level=1 FOR'),
  ],
  tried: [
    fixTrial('index k', 'refused', { reason: REFUSAL }),
    fixTrial('semijoin=on', 'does not restore', { ratio_to_baseline: ratio(7, 'regression'), results_equal: true, rounds: 5 }),
    RESTORES,
  ],
  progress: { phase: 'done', tried: 3, rounds_done: 10, minutes: 0.5, message: 'restored' },
  result: fixResult('restored', { remedy: 'materialization=on,semijoin=on', tried: 3, rounds: 10, minutes: 0.5 }),
  share_token: 'good',
})  // prettier-ignore

const EXHAUSTED = fixSearch({
  ...SHARED,
  share_token: 'none',
  tried: SHARED.tried.slice(0, 2),
  candidates: SHARED.candidates.slice(0, 2),
  result: fixResult('no remedy found', { tried: 2, rounds: 5, minutes: 0.2 }),
})

function answer(request: Request): Response {
  const token = new URL(request.url).pathname.split('/').pop()
  const found = token === 'good' ? SHARED : token === 'none' ? EXHAUSTED : null
  return new Response(JSON.stringify(found ?? { detail: 'shared fix search link not found' }), {
    status: found ? 200 : 404,
    headers: { 'Content-Type': 'application/json' },
  })
}

function open(token: string) {
  vi.stubGlobal('fetch', vi.fn(async (request: Request) => answer(request)))
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  return render(
    <QueryClientProvider client={client}>
      {atRoute(<FixSearchSharePage />, `/share/fixsearches/${token}`, '/share/fixsearches/:token')}
    </QueryClientProvider>,
  )
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('FixSearchSharePage', () => {
  it('shows the remedy with what to apply, every candidate in the order tried, a refusal in the server’s words', async () => {
    const view = open('good')
    await waitFor(() => expect(view.getByTestId('fix-status').textContent).toBe('succeeded'))
    expect(view.getByTestId('fix-outcome').textContent).toBe(
      'Restored by materialization=on,semijoin=on (3 candidates tried, 10 rounds, 30 s).',
    )
    expect(view.getByTestId('fix-apply').textContent).toBe("SET STATEMENT optimizer_switch='materialization=on,semijoin=on' FOR")
    expect(view.getByTestId('fix-rewritten').textContent).toBe(SHARED.tried[2].statements[0])
    expect(view.getByTestId('fix-remedy').textContent).toContain('1.01x [0.91, 1.11] no significant difference (5 rounds)')
    const rows = view.getAllByTestId('fix-candidate')
    expect(rows.map((r) => [r.dataset.state, r.dataset.remedy ?? ''])).toEqual([
      ['refused', ''],
      ['does not restore', ''],
      ['restores', 'true'],
      ['not tried', ''],
    ])
    expect(view.getAllByTestId('fix-trial-reason')[0].textContent).toBe(REFUSAL)
    const more = view.getByTestId('fix-remedy-more')
    expect([...more.querySelectorAll('[data-field] > dt')].map((dt) => dt.textContent)).toEqual([
      'plan after',
      'side effects',
      'said',
      'checked',
    ])
    expect([...more.querySelectorAll('[data-field=plan_after] td')].map((td) => td.textContent)).toEqual(['i', 'ALL', '-', '500'])
    expect(more.querySelector('[data-field=checked]')?.textContent).toContain('select 1' + '1.02x [0.92, 1.12] no significant difference')
    expect(rows[1].textContent).toContain('7.00x [6.30, 7.70] regression')
    // read-only: no cancel, no share, the replay named but not linked (its page needs a sign-in)
    expect(view.queryByTestId('fix-cancel')).toBeNull()
    expect(view.queryByTestId('fix-share-button')).toBeNull()
    expect(view.getByTestId('fix-replay').tagName).toBe('SPAN')
    expect(view.container.querySelectorAll('a')).toHaveLength(0)
  })

  it('says no remedy was found, with what was tried and no remedy section', async () => {
    const view = open('none')
    await waitFor(() => expect(view.getByTestId('fix-outcome').dataset.outcome).toBe('no remedy found'))
    expect(view.queryByTestId('fix-remedy')).toBeNull()
    expect(view.getAllByTestId('fix-candidate').map((r) => r.dataset.state)).toEqual(['refused', 'does not restore'])
  })

  it('says the link does not work for an unknown token', async () => {
    const view = open('made-up')
    await waitFor(() => expect(view.getByTestId('share-error').textContent).toContain('not found'))
    expect(view.queryByTestId('fix-status')).toBeNull()
  })
})
