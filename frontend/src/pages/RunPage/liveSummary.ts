import type { PointSeries } from '../../charts/downsample'
import type { SummaryRow } from '../../client'

function quantile(sorted: number[], fraction: number): number | null {
  if (sorted.length === 0) return null
  const position = (sorted.length - 1) * fraction
  const low = Math.floor(position)
  const high = Math.min(low + 1, sorted.length - 1)
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low)
}

/** The summary of series received so far (same definitions as the server's: linear percentiles, seconds). */
export function liveSummary(series: PointSeries[]): SummaryRow[] {
  const rows = series.map((s) => {
    const times = s.points.map((p) => p.elapsed_s)
    const sorted = [...times].sort((a, b) => a - b)
    return {
      variant: s.variant,
      variant_index: s.variant_index,
      iterations: times.length,
      median_s: quantile(sorted, 0.5),
      p95_s: quantile(sorted, 0.95),
      total_s: times.reduce((a, b) => a + b, 0),
      ratio: null as number | null,
    }
  })
  const base = rows[0]?.median_s
  for (const r of rows) if (base && r.median_s != null) r.ratio = r.median_s / base
  return rows
}
