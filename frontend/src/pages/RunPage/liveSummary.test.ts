import { describe, expect, it } from 'vitest'
import type { PointSeries } from '../../charts/downsample'
import { liveSummary } from './liveSummary'

function series(variant_index: number, times: number[]): PointSeries {
  return {
    variant: `v${variant_index}`,
    variant_index,
    points: times.map((elapsed_s, i) => ({ iteration: i + 1, elapsed_s })),
  }
}

describe('live summary of the series received so far', () => {
  it('gives the linear median, p95 and total in seconds, and the ratio to the first variant', () => {
    const [base, other] = liveSummary([series(0, [0.3, 0.1, 0.2, 0.4]), series(1, [0.5, 0.5, 0.6])])
    expect(base.iterations).toBe(4)
    expect(base.median_s).toBeCloseTo(0.25)
    expect(base.p95_s).toBeCloseTo(0.385) // (4 - 1) x 0.95 = 2.85: 0.3 + 0.85 x 0.1
    expect(base.total_s).toBeCloseTo(1.0)
    expect(base.ratio).toBeCloseTo(1)
    expect(other.median_s).toBeCloseTo(0.5)
    expect(other.ratio).toBeCloseTo(2)
  })

  it('has no median nor ratio for a variant without iterations yet', () => {
    const [base, empty] = liveSummary([series(0, [0.2]), series(1, [])])
    expect(empty.median_s).toBeNull()
    expect(empty.ratio).toBeNull()
    expect(empty.total_s).toBe(0)
    expect(base.p95_s).toBeCloseTo(0.2)
  })
})
