import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { AttributionResult } from '../../client'
import { ContributionBars } from './ContributionBars'

const member = (name: string, contribution: number, half: number) => ({
  name, known: null, baseline: null, variant: null, lines: [], alone: null,
  contribution, low: contribution - half, high: contribution + half,
})  // prettier-ignore

const RESULT: AttributionResult = {
  outcome: 'explained', target_share: 0.8, complete: true, runs: 4, minutes: 6.5,
  set: ['innodb-file-per-table', 'skip-log-bin'], set_share: { share: 0.97, low: 0.9, high: 1.04 }, all_share: null,
  members: [member('innodb-file-per-table', 0.7, 0.08), member('skip-log-bin', 0.25, 0.08)],
  interaction: 0.02, interacts: false, unexplained: 0.03, lines: ['# drop skip-log-bin'],
  also: [], beside: [], beside_complete: true, tested: [], refused: [],
}  // prettier-ignore

afterEach(cleanup)

describe('ContributionBars', () => {
  it('shows each member with its share and interval, and the unexplained remainder', () => {
    const view = render(<ContributionBars result={RESULT} />)
    const rows = view.getAllByTestId('contribution')
    expect(rows.map((r) => r.dataset.name)).toEqual(['innodb-file-per-table', 'skip-log-bin'])
    expect(view.getAllByTestId('contribution-text')[1].textContent).toBe('25 % of the gap [17 %, 33 %]')
    expect(view.getByTestId('unexplained').textContent).toContain('3 %')
    expect(view.queryByTestId('interaction')).toBeNull()
  })

  it('names an interaction when the parts do not add up', () => {
    const view = render(<ContributionBars result={{ ...RESULT, interaction: -0.6, interacts: true }} />)
    expect(view.getByTestId('interaction').textContent).toContain('-60 %')
  })

  it('says how a setting beside the set was decided, and what stayed undecided', () => {
    const alone = { share: 0.22, low: 0.09, high: 0.35 }
    const also = [{ name: 'skip-log-bin', alone, lines: [], known: null, decided_by: 'confirmation', runs: 2, p: 0.0004, level: 0.025, screening: null }]
    const group = { subset: ['a', 'b'], stage: 'group', share: 0.02, low: -0.1, high: 0.14, runs: 2, p: 0.4, level: 0.0125, decided: false, screening: null }
    const view = render(<ContributionBars result={{ ...RESULT, set: ['innodb-file-per-table'], also, beside: [group] }} />)
    expect(view.getByTestId('also').textContent).toContain('22 % alone [9 %, 35 %], confirmed in 2 fresh runs')
    expect(view.getByTestId('beside-undecided').textContent).toContain('a + b 2 % [-10 %, 14 %] in 2 fresh runs')
  })
})
