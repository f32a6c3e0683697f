import { describe, expect, it } from 'vitest'
import type { ContrastRead } from '../../client'
import { contrastPoints } from './contrastRows'

const row = (variant_index: number, ratio: number | null): ContrastRead => ({
  variant: `v${variant_index}`,
  variant_index,
  name: 'monitor=on / monitor=off',
  numerator: 'monitor=on',
  denominator: 'monitor=off',
  metric: 'seconds',
  unit: 's',
  description: '',
  verdict:
    ratio === null
      ? null
      : { ratio, low: ratio * 0.9, high: ratio * 1.2, rounds: 5, method: 'paired rounds', mde: 0.15, verdict: 'regression', reason: '' },
})

describe('contrastPoints', () => {
  it('gives the interval as distances below and above the ratio, and skips rows without a value', () => {
    const points = contrastPoints([row(0, 16), row(1, null), row(2, 1.02)])
    expect(points.map((p) => p.label)).toEqual(['v0 · monitor=on / monitor=off', 'v2 · monitor=on / monitor=off'])
    expect(points[0].error[0]).toBeCloseTo(1.6)
    expect(points[0].error[1]).toBeCloseTo(3.2)
    expect(points[1].variantIndex).toBe(2)
  })
})
