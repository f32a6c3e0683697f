// Series drawn at about 1 point per pixel of the chart: the API downsamples stored series to the width
// the page sends (backend results/stats/downsample.py, MinMaxLTTB); live series keep growing in the browser and
// are LTTB-downsampled here to the same budget once they pass it.
import { createLTTB } from 'downsample'
import type { ColumnSeries, Point } from '../client'
import { pointBudget } from './width'

/** A series as points (the live stream, the comparison's series). */
export interface PointSeries {
  variant: string
  variant_index: number
  points: Point[]
}

/** Points -> columns (the API's ColumnSeries shape); total_points is the series' length. */
export function toColumns(series: PointSeries[]): ColumnSeries[] {
  return series.map((s) => ({
    variant: s.variant,
    variant_index: s.variant_index,
    iterations: s.points.map((p) => p.iteration),
    elapsed_s: s.points.map((p) => p.elapsed_s),
    total_points: s.points.length,
  }))
}

/** The series with at most `max` points each (first, last and spikes kept, LTTB); shorter ones unchanged;
 * total_points is kept. */
export function downsampleColumns(series: ColumnSeries[], max = pointBudget()): ColumnSeries[] {
  return series.map((s) => {
    if (s.iterations.length <= max) return s
    const lttb = createLTTB<number>({ x: (k: number) => s.iterations[k], y: (k: number) => s.elapsed_s[k] })
    const kept = Array.from(lttb(Array.from(s.iterations.keys()), max))
    return { ...s, iterations: kept.map((k) => s.iterations[k]), elapsed_s: kept.map((k) => s.elapsed_s[k]) }
  })
}
