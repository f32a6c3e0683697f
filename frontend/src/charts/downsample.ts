// Live series keep growing in the browser; past MAX_POINTS they are drawn LTTB-downsampled like the
// stored ones the API sends (backend results/downsample.py, same algorithm and the same 2,000).
import { createLTTB } from 'downsample'
import type { Point, Series } from '../client'

export const MAX_POINTS = 2000

const lttb = createLTTB<Point>({ x: 'iteration', y: 'elapsed_s' })

/** The series with at most `max` points each (first and last kept); shorter ones unchanged. */
export function downsampleSeries(series: Series[], max = MAX_POINTS): Series[] {
  return series.map((s) => (s.points.length > max ? { ...s, points: Array.from(lttb(s.points, max)) } : s))
}
