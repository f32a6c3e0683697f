import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { StatementCost as Cost } from '../../client'
import { StatementCost } from './StatementCost'

const COST: Cost = {
  variant: 'mariadb-11.8', sql: 'DO 0', clock: 'server', median_s: 0.000095, baseline_s: 0.00005,
  difference_us: 45.2, difference_low_us: 40.1, difference_high_us: 50.3,
  ratio: { ratio: 1.9, low: 1.8, high: 2.0, rounds: 20, method: 'paired rounds', mde: 0.05, verdict: 'regression', reason: 'r' },
  aa_control: false, host: null, text: 'every statement costs +45 us [+40, +50] on mariadb-11.8',
}  // prettier-ignore

afterEach(cleanup)

describe('StatementCost', () => {
  it('shows per variant the difference in microseconds with its interval and the ratio with its verdict', () => {
    const view = render(<StatementCost costs={[COST]} baseline="mariadb-10.11" />)
    const row = view.getByTestId('statement-cost-mariadb-11.8')
    expect(row.getAttribute('title')).toBe(COST.text)
    expect(view.getByTestId('statement-cost-difference').textContent).toBe('+45 us [+40 us, +50 us]')
    expect(row.textContent).toContain('1.90x [1.80, 2.00] regression')
    expect(row.textContent).toContain('50 us')
  })

  it("marks the A/A control's row as the noise floor and shows its ratio without a verdict", () => {
    const control: Cost = {
      ...COST, variant: 'b', aa_control: true, text: 'the A/A control b: ...',
      ratio: { ...COST.ratio!, ratio: 1.1, low: 1.01, high: 1.21, verdict: 'regression' },
    }  // prettier-ignore
    const view = render(<StatementCost costs={[control, COST]} baseline="a" />)
    const row = view.getByTestId('statement-cost-b')
    expect(row.textContent).toContain('(A/A control: the noise floor)')
    expect(row.textContent).toContain('1.10x [1.01, 1.21]')
    expect(row.textContent).not.toContain('regression')
    expect(view.getByTestId('statement-cost-mariadb-11.8').textContent).toContain('regression')
  })

  it('shows a sharded replay\'s row per variant and host, the hosts named', () => {
    const costs: Cost[] = [
      { ...COST, host: 'celery@one', text: 'on celery@one: every statement costs +1 us' },
      { ...COST, host: 'local@two', difference_us: 90, text: 'on local@two: every statement costs +90 us' },
    ]
    const view = render(<StatementCost costs={costs} baseline="mariadb-10.11" />)
    const rows = view.getAllByTestId('statement-cost-mariadb-11.8')
    expect(rows.map((row) => row.getAttribute('data-host'))).toEqual(['celery@one', 'local@two'])
    expect(rows[1].textContent).toContain('local@two')
    expect(rows[1].textContent).toContain('+90 us')
    expect(view.getByTestId('statement-cost-hosts').textContent).toContain('Sharded over 2 hosts (celery@one, local@two)')
    expect(view.getByText('host')).toBeTruthy()
  })

  it('has no host column for a replay on one host', () => {
    const view = render(<StatementCost costs={[COST]} baseline="mariadb-10.11" />)
    expect(view.queryByTestId('statement-cost-hosts')).toBeNull()
    expect(view.queryByText('host')).toBeNull()
  })

  it('shows nothing for a report made before the per-statement cost', () => {
    const view = render(<StatementCost costs={[]} baseline="mariadb-10.11" />)
    expect(view.queryByTestId('statement-cost')).toBeNull()
  })
})
