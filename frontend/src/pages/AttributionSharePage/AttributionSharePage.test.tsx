import { cleanup, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { AttributionRead } from '../../client'
import { jsonAnswer, renderOverApi } from '../../test/api'
import { atRoute } from '../../test/router'
import { AttributionSharePage } from './AttributionSharePage'

const member = (name: string, contribution: number) => ({
  name, known: null, baseline: null, variant: null, lines: [], alone: null,
  contribution, low: contribution - 0.1, high: contribution + 0.1,
})  // prettier-ignore

// A finished attribution as GET /api/public/attributions/{token} answers it: two step runs (41, 42).
const SHARED: AttributionRead = {
  id: 3, run_id: 40, variant: 'tuned', baseline: 'default', status: 'succeeded', error: null, group: '',
  metric: 'seconds', target_share: 0.8, rounds: 7, block: 2, budget_runs: 12, budget_minutes: 60,
  gap: {
    ratio: 1.61, low: 1.5, high: 1.7, rounds: 7, method: 'paired rounds', mde: 0.06, verdict: 'regression',
    reason: 'interval [1.500, 1.700] beyond 5%',
  },
  candidates: [{
    name: 'skip-log-bin', kind: 'option', baseline: null, variant: null, variables: ['log_bin'], known: null,
    revert: { remove_options: ['skip-log-bin'], add_options: {}, set_global: {}, remove_set_global: [], redo_log: null,
      remove_instance: [], add_instance: [] },
    lines: ['# drop skip-log-bin'],
  }],
  untestable: [],
  steps: [
    { step: 1, run_id: 41, subsets: [['skip-log-bin']], phase: 'step', gap: null, tests_done: true,
      tests: [{ subset: ['skip-log-bin'], share: 0.6, low: 0.5, high: 0.7, closes: false, verdict: null, error: null }] },
    { step: 2, run_id: 42, subsets: [['innodb-file-per-table']], phase: 'step', gap: null, tests: null, tests_done: false },
  ],
  progress: { phase: 'done', runs_done: 2, runs_budget: 12, minutes: 1.5, current_run_id: null, message: 'explained' },
  result: {
    outcome: 'explained', target_share: 0.8, complete: true, runs: 2, minutes: 1.5,
    set: ['skip-log-bin', 'innodb-file-per-table'], set_share: null, all_share: null,
    members: [member('skip-log-bin', 0.6), member('innodb-file-per-table', 0.3)],
    interaction: 0, interacts: false, unexplained: 0.1, lines: ['# drop skip-log-bin', 'innodb-file-per-table=ON'],
    also: [], beside: [], beside_complete: true, tested: [], refused: [],
  },
  share_token: 'good', created_at: '2026-11-24T10:00:00Z', started_at: null, finished_at: null,
}  // prettier-ignore

const answer = jsonAnswer((path) => (path === '/api/public/attributions/good' ? SHARED : null), 'shared attribution link not found')

// Under the real router: a Link renders as an anchor, so a link to a signed-in page would show here.
function open(token: string) {
  return renderOverApi(atRoute(<AttributionSharePage />, `/share/attributions/${token}`, '/share/attributions/:token'), answer)
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('AttributionSharePage', () => {
  it('shows the result read-only: bars, remainder, option lines, steps, and no link a signed-out reader cannot open', async () => {
    const view = open('good')
    await waitFor(() => expect(view.getByTestId('attribution-status').textContent).toBe('succeeded'))
    expect(view.getAllByTestId('contribution').map((row) => row.dataset.name)).toEqual(['skip-log-bin', 'innodb-file-per-table'])
    expect(view.getByTestId('unexplained').textContent).toContain('10 %')
    expect(view.getByTestId('attribution-lines').textContent).toBe('# drop skip-log-bin\ninnodb-file-per-table=ON')
    expect(view.getAllByTestId('step-run').map((cell) => [cell.tagName, cell.textContent])).toEqual([
      ['SPAN', 'run 41'],
      ['SPAN', 'run 42'],
    ])
    expect(view.getByTestId('attribution-run').tagName).toBe('SPAN')
    const hrefs = [...view.container.querySelectorAll('a')].map((a) => a.getAttribute('href'))
    expect(hrefs).toEqual([
      '/api/public/attributions/good/export?format=csv',
      '/api/public/attributions/good/export?format=json',
    ]) // only its own exports, public too
    expect(view.queryByTestId('attribution-cancel')).toBeNull()
    expect(view.queryByTestId('attribution-share-button')).toBeNull()
  })

  it('says the link does not work for an unknown token', async () => {
    const view = open('made-up')
    await waitFor(() => expect(view.getByTestId('share-error').textContent).toContain('not found'))
    expect(view.getByTestId('share-error').textContent).toContain('This link does not work')
    expect(view.queryByTestId('attribution-status')).toBeNull()
  })
})
