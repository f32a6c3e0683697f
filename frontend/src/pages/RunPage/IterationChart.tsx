import { useMemo } from 'react'
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts'
import type { Series } from '../../client'
import { ChartContainer } from '../../charts/ChartContainer'
import { METRICS } from '../../charts/metrics'
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
  const metric = METRICS.elapsed_ms
  const totalPoints = series.reduce((n, s) => n + s.points.length, 0)

  const rows = useMemo(() => {
    const byIteration = new Map<number, Row>()
    for (const s of series) {
      for (const p of s.points) {
        let row = byIteration.get(p.iteration)
        if (!row) {
          row = { iteration: p.iteration }
          byIteration.set(p.iteration, row)
        }
        row[keyOf(s.variant_index)] = metric.fromSeconds(p.elapsed_s)
      }
    }
    return [...byIteration.values()].sort((a, b) => a.iteration - b.iteration)
  }, [series, metric])

  const maxIteration = Math.max(1, iterations, ...rows.map((r) => r.iteration))

  return (
    <div data-testid="iteration-chart" data-points={String(totalPoints)}>
      <ChartContainer
        title={`${metric.label} (${metric.unit})`}
        empty={totalPoints === 0}
        emptyText="No iterations recorded yet."
        pngName={pngName}
      >
        <LineChart data={rows} margin={{ top: 8, right: 24, bottom: 24, left: 16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
          <XAxis
            dataKey="iteration"
            type="number"
            domain={[1, maxIteration]}
            allowDecimals={false}
            label={{ value: 'iteration', position: 'insideBottom', offset: -12 }}
          />
          <YAxis
            width={64}
            tickFormatter={(v: number) => metric.format(v)}
            label={{ value: metric.axisLabel, angle: -90, position: 'insideLeft', offset: -4, style: { textAnchor: 'middle' } }}
          />
          <Tooltip
            formatter={(value) =>
              typeof value === 'number' ? `${metric.format(value)} ${metric.unit}` : String(value)
            }
            labelFormatter={(label) => `iteration ${String(label)}`}
          />
          <Legend verticalAlign="top" height={32} />
          {series.map((s) => (
            <Line
              key={s.variant_index}
              type="linear"
              dataKey={keyOf(s.variant_index)}
              name={s.variant}
              stroke={variantColor(s.variant_index)}
              strokeWidth={1.5}
              dot={false}
              isAnimationActive={false}
              connectNulls
            />
          ))}
        </LineChart>
      </ChartContainer>
    </div>
  )
}
