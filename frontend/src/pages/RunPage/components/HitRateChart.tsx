import { useMemo } from 'react'
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts'
import type { VariantProbes } from '../../../client'
import { ChartContainer } from '../../../charts/ChartContainer'
import { variantColor } from '../../../charts/palette'
import { keyOf, rowsOf } from './probeRows'

/** Buffer pool hit rate per iteration (1 - reads/read_requests, %), one line per variant.
 * Iterations without read requests have no point (undefined, not 100%). */
export function HitRateChart({ variants }: { variants: VariantProbes[] }) {
  const { rows, points } = useMemo(
    () => rowsOf(variants, (p) => ({ '': p.hit_rate == null ? null : p.hit_rate * 100 })),
    [variants],
  )
  return (
    <div data-testid="hit-rate-chart" data-points={String(points)}>
      <ChartContainer
        title="Buffer pool hit rate (%)"
        height={280}
        empty={points === 0}
        emptyText="No hit rate yet (no iterations, or no read requests)."
      >
        <LineChart data={rows} margin={{ top: 8, right: 24, bottom: 24, left: 16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
          <XAxis
            dataKey="iteration"
            type="number"
            domain={['dataMin', 'dataMax']}
            allowDecimals={false}
            label={{ value: 'iteration', position: 'insideBottom', offset: -12 }}
          />
          <YAxis width={64} domain={['auto', 100]} tickFormatter={(v: number) => v.toFixed(2)} />
          <Tooltip
            formatter={(value) => (typeof value === 'number' ? `${value.toFixed(3)} %` : String(value))}
            labelFormatter={(label) => `iteration ${String(label)}`}
          />
          <Legend verticalAlign="top" height={32} />
          {variants.map((v) => (
            <Line
              key={v.variant_index}
              type="linear"
              dataKey={keyOf(v.variant_index)}
              name={v.variant}
              stroke={variantColor(v.variant_index)}
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
