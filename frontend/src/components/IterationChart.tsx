import { memo, useMemo } from 'react'
import type { ColumnSeries } from '../client'
import { downsampleColumns } from '../charts/downsample'
import { pointBudget } from '../charts/width'
import { LineChartCard } from '../charts/LineChartCard'
import { ITERATION_TIME } from '../charts/metrics'
import { variantColor } from '../charts/palette'

interface Props {
  /** Per variant, iterations[] and elapsed_s[] (seconds): stored ones arrive downsampled to the chart's
   * width; live ones are downsampled here once they pass it. */
  series: ColumnSeries[]
  /** Iterations per variant, to keep the x axis stable while a run fills in. */
  iterations: number
  /** PNG export file name (no button when absent). */
  pngName?: string
}

// Keys are by variant_index: variant names may contain dots, which Recharts reads as paths.
const keyOf = (variantIndex: number) => `v${variantIndex}`

/** Seconds per iteration (drawn in ms), one line per variant from its own columns, drawn as one SVG path
 * each (LineSpec.columns): no merged table of every x position, no element or layout object per point.
 * Memoised: a page's other updates (a clock, refetches) do not redraw it while its props stay the same. */
export const IterationChart = memo(function IterationChart({ series, iterations, pngName }: Props) {
  const drawn = useMemo(() => downsampleColumns(series, pointBudget()), [series])
  const lines = useMemo(
    () =>
      drawn.map((s) => {
        const key = keyOf(s.variant_index)
        return {
          key,
          name: s.variant,
          color: variantColor(s.variant_index),
          columns: { x: s.iterations, y: s.elapsed_s.map((seconds) => seconds * 1000) },
        }
      }),
    [drawn],
  )
  const points = drawn.reduce((n, s) => n + s.iterations.length, 0)
  const total = series.reduce((n, s) => n + s.total_points, 0)
  const lastIteration = Math.max(1, iterations, ...drawn.map((s) => s.iterations.at(-1) ?? 1))

  return (
    <div data-testid="iteration-chart" data-points={String(points)} data-total-points={String(total)}>
      <LineChartCard
        rows={[]}
        x={{ key: 'iteration', label: 'iteration', domain: [1, lastIteration], integer: true }}
        y={ITERATION_TIME}
        lines={lines}
        height={360}
        empty={points === 0}
        emptyText="No iterations recorded yet."
        pngName={pngName}
      />
    </div>
  )
})
