import { cleanup, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { FixSearchRead, VerdictRead } from '../../client'
import { jsonAnswer, renderOverApi } from '../../test/api'
import { atRoute } from '../../test/router'
import { FixSearchSharePage } from './FixSearchSharePage'
import { fixCandidate, fixResult, fixSearch, fixTrial, fixVerdict } from '../../test/fixSearches'

const QUERY = 'SELECT COUNT(*) FROM o WHERE o.k IN (SELECT i.c FROM i)'
const REFUSAL = "ERROR 1064: You have an error in your SQL syntax near 'FORCE INDEX (k)'"

const ratio = (value: number, verdict: VerdictRead['verdict']) => fixVerdict(value, verdict)
const candidate = (name: string, source: string, apply: string) => fixCandidate(name, { source, apply })

// A field a newer API adds to a trial: shown as it comes, without this page knowing its shape.
const NEWER = { verified_on: [{ server: 'mariadb-11.8', ratio: ratio(1.02, 'no significant difference') }] }
const PLAN_BEFORE = [{ table: 'i', access_type: 'ALL', key: null, rows: 500 }]
const PLAN_AFTER = [{ table: 'i', access_type: 'eq_ref', key: 'distinct_key', rows: 1 }]
const RESTORES = Object.assign(
  fixTrial('materialization=on,semijoin=on', 'restores', {
    ratio_to_baseline: ratio(1.01, 'no significant difference'), ratio_to_variant: ratio(0.05, 'improvement'),
    variant_to_baseline: ratio(20, 'regression'), results_equal: true, rounds: 5,
    statements: [`SET STATEMENT optimizer_switch='materialization=on,semijoin=on' FOR ${QUERY}`],
    plan_before: PLAN_BEFORE, plan_after: PLAN_AFTER, scope: 'statement',
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

// Under scope "both": the statement-level remedy, then its twin as a global setting, which slows
// another fingerprint of the replay (a side effect, listed).
const TWIN = 'optimizer_switch materialization=on,semijoin=on (global)'
const GLOBAL = fixSearch({
  ...SHARED,
  share_token: 'global',
  tried: [
    ...SHARED.tried,
    fixTrial(TWIN, 'restores', {
      scope: 'global', ratio_to_baseline: ratio(1.0, 'no significant difference'), results_equal: true, rounds: 5,
      apply: 'optimizer_switch=materialization=on,semijoin=on',
      set_global: "SET GLOBAL optimizer_switch='materialization=on,semijoin=on'",
      side_effects: {
        complete: true, said: '1 side effect: slower', rounds_per_fingerprint: 5, rounds: 10, minutes: 0.3,
        budget_minutes: 10, not_checked: [],
        side_effects: [{ fingerprint_id: 'q2', fingerprint: 'select * from o where id in (?)', ratio: ratio(3, 'regression'),
          verdict: 'regression', results_equal: true, rounds: 5, error: null, side_effect: true }],
        checked: [],
      },
    }),
  ],
  result: fixResult('restored', { remedy: 'materialization=on,semijoin=on', global_remedy: TWIN, tried: 4, rounds: 15, minutes: 0.6 }),
})  // prettier-ignore

const SHARES: Record<string, FixSearchRead> = { good: SHARED, none: EXHAUSTED, global: GLOBAL }
const answer = jsonAnswer((path) => SHARES[path.split('/').pop() ?? ''] ?? null, 'shared fix search link not found')

function open(token: string) {
  return renderOverApi(atRoute(<FixSearchSharePage />, `/share/fixsearches/${token}`, '/share/fixsearches/:token'), answer)
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
    expect([...view.getByTestId('fix-plans').querySelectorAll('tr')].map((tr) => tr.textContent)).toEqual([
      'iALLno index500 rows',
      'ieq_refdistinct_key1 rows',
    ])
    const more = view.getByTestId('fix-remedy-more')
    expect([...more.querySelectorAll('[data-field] > dt')].map((dt) => dt.textContent)).toEqual(['verified on'])
    expect([...more.querySelectorAll('td')].map((td) => td.textContent)).toEqual([
      'mariadb-11.8',
      '1.02x [0.92, 1.12] no significant difference (5 rounds)',
    ])
    expect(rows[1].textContent).toContain('7.00x [6.30, 7.70] regression')
    // read-only: no cancel, no share, the replay named but not linked (its page needs a sign-in)
    expect(view.queryByTestId('fix-cancel')).toBeNull()
    expect(view.queryByTestId('fix-share-button')).toBeNull()
    expect(view.getByTestId('fix-replay').tagName).toBe('SPAN')
    const hrefs = [...view.container.querySelectorAll('a')].map((a) => a.getAttribute('href'))
    expect(hrefs).toEqual(['/api/public/fixsearches/good/export?format=csv', '/api/public/fixsearches/good/export?format=json'])
  })

  it('says no remedy was found, with what was tried and no remedy section', async () => {
    const view = open('none')
    await waitFor(() => expect(view.getByTestId('fix-outcome').dataset.outcome).toBe('no remedy found'))
    expect(view.queryByTestId('fix-remedy')).toBeNull()
    expect(view.getAllByTestId('fix-candidate').map((r) => r.dataset.state)).toEqual(['refused', 'does not restore'])
  })

  it('shows a global remedy apart, with its option line, SET GLOBAL and the fingerprint it slows', async () => {
    const view = open('global')
    await waitFor(() => expect(view.getByTestId('fix-global-remedy').dataset.scope).toBe('global'))
    expect(view.getByTestId('fix-outcome').textContent).toContain(`; as a global setting by ${TWIN}`)
    const card = view.getByTestId('fix-global-remedy')
    expect(card.querySelector('[data-testid=fix-apply]')?.textContent).toBe('optimizer_switch=materialization=on,semijoin=on')
    expect(card.querySelector('[data-testid=fix-set-global]')?.textContent).toContain('SET GLOBAL')
    expect(card.querySelector('[data-testid=fix-rewritten]')).toBeNull()
    expect(card.querySelector('[data-testid=fix-side-effects]')?.textContent).toContain('1 side effect: slower')
    expect([...card.querySelectorAll('[data-testid=fix-side-effect]')].map((tr) => tr.textContent)).toEqual([
      'select * from o where id in (?)3.00x [2.70, 3.30] regression (5 rounds)equal',
    ])
    const twin = view.getAllByTestId('fix-candidate')[3]
    expect(twin.querySelector('[data-testid=fix-scope]')?.textContent).toBe('global')
    expect(twin.querySelector('[data-testid=fix-trial-side-effects]')?.textContent).toContain('select * from o where id in (?)')
  })

  it('says the link does not work for an unknown token', async () => {
    const view = open('made-up')
    await waitFor(() => expect(view.getByTestId('share-error').textContent).toContain('not found'))
    expect(view.queryByTestId('fix-status')).toBeNull()
  })
})
