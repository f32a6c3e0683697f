import { describe, expect, it } from 'vitest'
import { cachedSvgPath, sampleIndexes, svgPath } from './paths'

const linear = (from: [number, number], to: [number, number]) => (v: number) =>
  to[0] + ((v - from[0]) / (from[1] - from[0])) * (to[1] - to[0])

describe('a long series drawn as one path', () => {
  it('maps every point through the scales, to 0.1 px', () => {
    const x = linear([1, 3], [0, 100])
    const y = linear([0, 10], [200, 0]) // SVG y grows downwards
    expect(svgPath({ x: [1, 2, 3], y: [0, 5, 10] }, x, y)).toBe('M0.0,200.0L50.0,100.0L100.0,0.0')
  })

  it('skips points a scale cannot place and joins over them', () => {
    const x = (v: number) => (v === 2 ? undefined : v * 10)
    const y = (v: number) => v
    expect(svgPath({ x: [1, 2, 3, 4], y: [5, 6, Number.NaN, 8] }, x, y)).toBe('M10.0,5.0L40.0,8.0')
    expect(svgPath({ x: [], y: [] }, x, y)).toBe('')
  })
})

describe('the sample behind the axes, legend and tooltip', () => {
  it('keeps a short series whole', () => {
    expect(sampleIndexes({ x: [1, 2, 3], y: [3, 1, 2] }, 10)).toEqual([0, 1, 2])
  })

  it('keeps first, last, lowest and highest of a long one, evenly spaced otherwise', () => {
    const y = Array.from({ length: 1000 }, (_, k) => 1 + (k % 7) / 100)
    y[333] = 50 // a spike between sampled positions
    y[667] = 0.1 // a dip
    const kept = sampleIndexes({ x: y.map((_, k) => k), y }, 11)
    expect(kept).toEqual([0, 100, 200, 300, 333, 400, 500, 599, 667, 699, 799, 899, 999])
    expect(Math.max(...kept.map((k) => y[k]))).toBe(50)
    expect(Math.min(...kept.map((k) => y[k]))).toBe(0.1)
  })
})

describe('cachedSvgPath', () => {
  it('draws again only when the scales move the series', () => {
    const columns = { x: [1, 2, 3], y: [0, 5, 10] }
    let calls = 0
    const x = (v: number) => {
      calls++
      return (v - 1) * 50
    }
    const y = (v: number) => 200 - v * 20
    expect(cachedSvgPath(columns, x, y)).toBe('M0.0,200.0L50.0,100.0L100.0,0.0')
    const first = calls
    // a new scale function with the same mapping: the stored path, the scale asked only for the extremes
    expect(cachedSvgPath(columns, (v) => x(v), y)).toBe('M0.0,200.0L50.0,100.0L100.0,0.0')
    expect(calls - first).toBe(2)
    // the axis grew: drawn again
    expect(cachedSvgPath(columns, (v) => (v - 1) * 100, y)).toBe('M0.0,200.0L100.0,100.0L200.0,0.0')
  })
})
