import { useMemo } from 'react'
import type { GroupPoint } from '../client'
import { LineChartCard } from './LineChartCard'
import { variantColor } from './palette'
import { groupX, type SweepMetric } from './sweepMetrics'

interface Props {
  points: GroupPoint[]
  /** The x axis name, e.g. "threads". */
  sweep: string
  metric: SweepMetric
}

type Row = { x: number } & Record<string, number>

/** One line per variant: the metric's per-group median against the swept value. */
export function SweepChart({ points, sweep, metric }: Props) {
  const variants = useMemo(() => {
    const seen = new Map<number, string>()
    for (const p of points) seen.set(p.variant_index, p.variant)
    return [...seen.entries()].sort((a, b) => a[0] - b[0])
  }, [points])
  const rows = useMemo(() => {
    const byX = new Map<number, Row>()
    for (const p of points) {
      const x = groupX(p.group)
      const value = metric.value(p)
      if (Number.isNaN(x) || value === null) continue
      const row = byX.get(x) ?? { x }
      row[`v${p.variant_index}`] = value
      byX.set(x, row)
    }
    return [...byX.values()].sort((a, b) => a.x - b.x)
  }, [points, metric])

  return (
    <div data-testid={`sweep-chart-${metric.key}`} data-points={String(rows.length)}>
      <LineChartCard
        rows={rows}
        x={{ key: 'x', label: sweep, scale: 'log', ticks: rows.map((r) => r.x) }}
        y={{ label: metric.label, unit: metric.unit, format: (v) => v.toPrecision(3) }}
        lines={variants.map(([index, name]) => ({ key: `v${index}`, name, color: variantColor(index), dots: true }))}
        title={`${metric.label} (${metric.unit}) by ${sweep}`}
        height={300}
        empty={rows.length === 0}
        emptyText="No completed group yet."
      />
    </div>
  )
}
