import type { ColumnSeries, Comparison } from '../client'

/** Comparison series as chart series: one colour per compared variant, on the same axes (the compare
 * page and a shared comparison draw them with IterationChart). */
export function comparisonSeries(comparison: Comparison): ColumnSeries[] {
  return comparison.series.map((s, position) => ({
    variant: s.label,
    variant_index: position,
    iterations: s.points.map((p) => p.iteration),
    elapsed_s: s.points.map((p) => p.elapsed_s),
    total_points: s.total_points,
  }))
}
