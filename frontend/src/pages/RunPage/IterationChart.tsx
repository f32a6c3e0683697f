import { useMemo } from 'react'
import type { Series } from '../../client'
import { downsampleSeries } from '../../charts/downsample'
import { LineChartCard } from '../../charts/LineChartCard'
import { ITERATION_TIME } from '../../charts/metrics'
import { variantColor } from '../../charts/palette'

interface Props {
  series: Series[]
  /** Iterations per variant, to keep the x axis stable while a run fills in. */
  iterations: number
  /** PNG export file name (no button when absent). */
  pngName?: string
}

type Row = { iteration: number } & Record<string, number>

// Keys are by variant_index: variant names may contain dots, which Recharts reads as paths.
const keyOf = (variantIndex: number) => `v${variantIndex}`

export function IterationChart({ series, iterations, pngName }: Props) {
  const totalPoints = series.reduce((n, s) => n + s.points.length, 0)

  const rows = useMemo(() => {
    const byIteration = new Map<number, Row>()
    for (const s of downsampleSeries(series)) {
      for (const p of s.points) {
        let row = byIteration.get(p.iteration)
        if (!row) {
          row = { iteration: p.iteration }
          byIteration.set(p.iteration, row)
        }
        row[keyOf(s.variant_index)] = p.elapsed_s * 1000
      }
    }
    return [...byIteration.values()].sort((a, b) => a.iteration - b.iteration)
  }, [series])

  const maxIteration = Math.max(1, iterations, ...rows.map((r) => r.iteration))

  return (
    <div data-testid="iteration-chart" data-points={String(totalPoints)}>
      <LineChartCard
        rows={rows}
        x={{ key: 'iteration', label: 'iteration', domain: [1, maxIteration], integer: true }}
        y={ITERATION_TIME}
        lines={series.map((s) => ({ key: keyOf(s.variant_index), name: s.variant, color: variantColor(s.variant_index) }))}
        height={360}
        empty={totalPoints === 0}
        emptyText="No iterations recorded yet."
        pngName={pngName}
      />
    </div>
  )
}
