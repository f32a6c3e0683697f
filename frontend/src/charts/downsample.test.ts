import { describe, expect, it } from 'vitest'
import { downsampleColumns, toColumns, type PointSeries } from './downsample'

function series(n: number): PointSeries {
  const points = Array.from({ length: n }, (_, i) => ({ iteration: i + 1, elapsed_s: i === 4321 ? 9 : 0.05 }))
  return { variant: 'v0', variant_index: 0, points }
}

describe('live series past a few thousand points', () => {
  it('are drawn with at most the budget, first, last and a spike kept', () => {
    const [drawn] = downsampleColumns(toColumns([series(10_000)]), 1500)
    expect(drawn.iterations).toHaveLength(1500)
    expect(drawn.elapsed_s).toHaveLength(1500)
    expect(drawn.total_points).toBe(10_000)
    expect(drawn.iterations[0]).toBe(1)
    expect(drawn.iterations.at(-1)).toBe(10_000)
    expect(drawn.elapsed_s[drawn.iterations.indexOf(4322)]).toBe(9)
    expect(drawn.iterations).toEqual([...drawn.iterations].sort((a, b) => a - b))
  })

  it('are left alone while short', () => {
    const [short] = toColumns([series(1500)])
    expect(downsampleColumns([short], 1500)[0]).toBe(short)
  })
})
