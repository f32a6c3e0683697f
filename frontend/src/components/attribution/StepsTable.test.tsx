import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { StepRead, VerdictRead } from '../../client'
import { atRoute } from '../../test/router'
import { StepsTable } from './StepsTable'

const verdict = (ratio: number, low: number, high: number, decided: VerdictRead['verdict']): VerdictRead => ({
  ratio, low, high, rounds: 7, method: 'paired rounds', mde: Math.sqrt(high / low) - 1, verdict: decided, reason: '',
})

const STEPS: StepRead[] = [
  {
    step: 1, run_id: 41, subsets: [['skip-log-bin'], ['max-connections']], phase: 'step', tests_done: true,
    gap: verdict(0.62, 0.571, 0.674, 'improvement'),
    tests: [
      { subset: ['skip-log-bin'], share: 0.62, low: 0.41, high: 0.83, closes: false,
        verdict: verdict(0.871, 0.82, 0.93, 'improvement'), error: null },
      { subset: ['max-connections'], share: null, low: null, high: null, closes: false, verdict: null,
        error: "unknown variable 'max-connections'" },
    ],
  },
  { step: 2, run_id: 42, subsets: [['innodb-file-per-table']], phase: 'step', gap: null, tests: null, tests_done: false },
]  // prettier-ignore

afterEach(cleanup)

describe('StepsTable', () => {
  it('links each step run and shows each test with its share, verdict or refusal', () => {
    const view = render(atRoute(<StepsTable steps={STEPS} />))
    const links = view.getAllByTestId('step-run')
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['/runs/41', '/runs/42'])
    const shares = view.getAllByTestId('step-share').map((c) => c.textContent)
    expect(shares).toEqual(['62 % [41 %, 83 %]', "refused: unknown variable 'max-connections'", 'running'])
    const verdicts = view.getAllByTestId('step-verdict').map((c) => c.textContent)
    expect(verdicts).toEqual(['0.87x [0.82, 0.93] improvement', '', ''])
    // the gap each step measured, once per step run (step 2 still running: none yet)
    const gaps = view.getAllByTestId('step-gap').map((c) => c.textContent)
    expect(gaps).toEqual(['0.62x [0.57, 0.67]', '', ''])
  })
})
