import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Step } from '../../api/attributions'
import { atRoute } from '../../test/router'
import { StepsTable } from './StepsTable'

const STEPS = [
  {
    step: 1, run_id: 41, subsets: [['skip-log-bin'], ['max-connections']],
    gap: { ratio: 0.62, low: 0.571, high: 0.674, verdict: 'improvement' },
    tests: [
      { subset: ['skip-log-bin'], share: 0.62, low: 0.41, high: 0.83, closes: false,
        verdict: { verdict: 'improvement', ratio: 0.871 } },
      { subset: ['max-connections'], share: null, low: null, high: null, closes: false,
        error: "unknown variable 'max-connections'" },
    ],
  },
  { step: 2, run_id: 42, subsets: [['innodb-file-per-table']] },
] as unknown as Step[]  // prettier-ignore

afterEach(cleanup)

describe('StepsTable', () => {
  it('links each step run and shows each test with its share, verdict or refusal', () => {
    const view = render(atRoute(<StepsTable steps={STEPS} />))
    const links = view.getAllByTestId('step-run')
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['/runs/41', '/runs/42'])
    const shares = view.getAllByTestId('step-share').map((c) => c.textContent)
    expect(shares).toEqual(['62 % [41 %, 83 %]', "refused: unknown variable 'max-connections'", 'running'])
    const verdicts = view.getAllByTestId('step-verdict').map((c) => c.textContent)
    expect(verdicts).toEqual(['improvement (0.871x)', '', ''])
    // the gap each step measured, once per step run (step 2 still running: none yet)
    const gaps = view.getAllByTestId('step-gap').map((c) => c.textContent)
    expect(gaps).toEqual(['0.620x [0.571x, 0.674x]', '', ''])
  })
})
