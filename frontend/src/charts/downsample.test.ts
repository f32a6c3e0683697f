import { describe, expect, it } from 'vitest'
import type { Series } from '../client'
import { MAX_POINTS, downsampleSeries } from './downsample'

function series(n: number): Series {
  const points = Array.from({ length: n }, (_, i) => ({ iteration: i + 1, elapsed_s: i === 4321 ? 9 : 0.05 }))
  return { variant: 'v0', variant_index: 0, points }
}

describe('live series past a few thousand points', () => {
  it('are drawn with at most 2,000 points, first, last and a spike kept', () => {
    const [drawn] = downsampleSeries([series(10_000)])
    expect(drawn.points).toHaveLength(MAX_POINTS)
    expect(drawn.points[0].iteration).toBe(1)
    expect(drawn.points.at(-1)?.iteration).toBe(10_000)
    expect(drawn.points.some((p) => p.elapsed_s === 9)).toBe(true)
    const iterations = drawn.points.map((p) => p.iteration)
    expect(iterations).toEqual([...iterations].sort((a, b) => a - b))
  })

  it('are left alone while short', () => {
    const short = series(MAX_POINTS)
    expect(downsampleSeries([short])[0]).toBe(short)
  })
})
