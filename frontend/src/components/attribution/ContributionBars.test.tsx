import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { AttributionResult } from '../../api/attributions'
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
})
