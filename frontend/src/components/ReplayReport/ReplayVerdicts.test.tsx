import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ReplayReport, VariantSummary } from '../../client'
import { ReplayVerdicts, verdictLine } from './ReplayVerdicts'

const SUMMARY: VariantSummary = {
  variant: 'mariadb-11.8', version: '11.8.2', breaks: 1, new_errors: 1, resolved_errors: 0, result_changes: 0,
  slower: 2, slower_plan_changed: 1, slower_timed_out: 0, faster: 0, faster_plan_changed: 0, slower_cost_only: 0,
  faster_cost_only: 0, same: 5, undecided: 1, undecided_median_mde: 0.2, plan_changes: 1, refused: 0, timeouts: 0,
  slower_causes: {}, faster_causes: {}, slower_also_break: 0, faster_also_break: 0,
  text: 'mariadb-11.8 (11.8.2) vs mariadb-10.11: breaks 1 (new errors 1, ...)',
}  // prettier-ignore

afterEach(cleanup)

describe('verdictLine', () => {
  it("says a variant's breaks, slower (with a plan change), faster, same and undecided in one line", () => {
    expect(verdictLine(SUMMARY, 'mariadb-10.11')).toBe(
      'mariadb-11.8 against mariadb-10.11: 1 break, 2 slower (1 with a plan change), 0 faster, 5 same, 1 undecided, ' +
        '1 plan changed',
    )
  })

  it('names the per-statement cost only, plans changed, resolved errors, refused writes and timeouts when there are some', () => {
    const quiet = { ...SUMMARY, breaks: 0, slower: 0, slower_plan_changed: 0, plan_changes: 0, refused: 3, timeouts: 1 }
    expect(verdictLine(quiet, 'a')).toBe(
      'mariadb-11.8 against a: 0 breaks, 0 slower, 0 faster, 5 same, 1 undecided, 3 refused writes, 1 timeout',
    )
    const more = { ...quiet, slower_cost_only: 2, plan_changes: 3, resolved_errors: 1, refused: 0, timeouts: 0 }
    expect(verdictLine(more, 'a')).toBe(
      'mariadb-11.8 against a: 0 breaks, 0 slower, 0 faster, 5 same, 1 undecided, ' +
        '2 slower / 0 faster by the per-statement cost only, 3 plans changed, 1 error resolved',
    )
  })
})

describe('ReplayVerdicts', () => {
  it("lists one line per variant, a break or a slower one marked, the CLI's whole line as its tooltip", () => {
    const same = { ...SUMMARY, variant: 'aa', breaks: 0, slower: 0, slower_plan_changed: 0 }
    const report = { baseline: 'mariadb-10.11', summary: [SUMMARY, same] } as unknown as ReplayReport
    const view = render(<ReplayVerdicts report={report} />)
    const line = view.getByTestId('replay-verdict-mariadb-11.8')
    expect(line.getAttribute('title')).toBe(SUMMARY.text)
    expect(line.className).toContain('verdict-regression')
    expect(view.getByTestId('replay-verdict-aa').className).toBe('')
  })
})
