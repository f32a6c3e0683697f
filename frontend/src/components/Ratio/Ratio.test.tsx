import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { VerdictRead } from '../../client'
import { Ratio } from './Ratio'

const SLOWER: VerdictRead = {
  ratio: 1.2345, low: 1.1, high: 1.3749, rounds: 10, method: 'paired rounds', mde: 0.118,
  verdict: 'regression', reason: 'interval [1.100, 1.375] beyond 5%',
}  // prettier-ignore

afterEach(cleanup)

describe('Ratio', () => {
  it('shows the ratio and its interval in two decimals, the reason on hover', () => {
    const view = render(<Ratio value={SLOWER} testId="ratio" />)
    const shown = view.getByTestId('ratio')
    expect(shown.textContent).toBe('1.23x [1.10, 1.37]')
    expect(shown.getAttribute('title')).toBe(SLOWER.reason)
    expect(shown.dataset.verdict).toBe('regression')
  })

  it('adds the verdict and the rounds only when asked', () => {
    const view = render(<Ratio value={SLOWER} testId="ratio" withVerdict withRounds />)
    expect(view.getByTestId('ratio').textContent).toBe('1.23x [1.10, 1.37] regression (10 rounds)')
  })

  it('shows a dash without a value', () => {
    const view = render(<Ratio value={null} testId="ratio" />)
    expect(view.getByTestId('ratio').textContent).toBe('-')
  })
})
