import { useMemo } from 'react'
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts'
import type { GroupPoint } from '../client'
import { ChartContainer } from './ChartContainer'
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
      <ChartContainer
        title={`${metric.label} (${metric.unit}) by ${sweep}`}
        height={300}
        empty={rows.length === 0}
        emptyText="No completed group yet."
      >
        <LineChart data={rows} margin={{ top: 8, right: 24, bottom: 24, left: 16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
          <XAxis
            dataKey="x"
            type="number"
            scale="log"
            domain={['dataMin', 'dataMax']}
            ticks={rows.map((r) => r.x)}
            label={{ value: sweep, position: 'insideBottom', offset: -12 }}
          />
          <YAxis width={72} label={{ value: metric.unit, angle: -90, position: 'insideLeft' }} />
          <Tooltip labelFormatter={(label) => `${sweep} ${String(label)}`} />
          <Legend verticalAlign="top" height={32} />
          {variants.map(([index, name]) => (
            <Line
              key={index}
              type="linear"
              dataKey={`v${index}`}
              name={name}
              stroke={variantColor(index)}
              strokeWidth={1.5}
              isAnimationActive={false}
              connectNulls
            />
          ))}
        </LineChart>
      </ChartContainer>
    </div>
  )
}
