import { useMemo } from 'react'
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts'
import type { VariantProbes } from '../../../client'
import { ChartContainer } from '../../../charts/ChartContainer'
import { variantColor } from '../../../charts/palette'
import { keyOf, rowsOf } from './probeRows'

const ms = (s: number | null) => (s === null ? null : s * 1000)

/** Per iteration and variant: server-side statement time (solid, from performance_schema TIMER_WAIT)
 * and client-side time (dashed, perf_counter); the gap is the harness's own overhead. */
export function ServerClientTimeChart({ variants }: { variants: VariantProbes[] }) {
  const { rows, points } = useMemo(
    () => rowsOf(variants, (p) => ({ s: ms(p.server_s ?? null), c: ms(p.client_s ?? null) })),
    [variants],
  )
  const serverPoints = variants.reduce(
    (n, v) => n + v.iterations.filter((p) => p.server_s !== null).length,
    0,
  )
  return (
    <div
      data-testid="server-client-chart"
      data-points={String(points)}
      data-server-points={String(serverPoints)}
    >
      <ChartContainer
        title="Server-side (solid) vs client-side (dashed) time per iteration (ms)"
        height={300}
        empty={points === 0}
        emptyText="No iterations recorded yet."
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
          <YAxis width={64} tickFormatter={(v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(2))} />
          <Tooltip
            formatter={(value) => (typeof value === 'number' ? `${value.toFixed(3)} ms` : String(value))}
            labelFormatter={(label) => `iteration ${String(label)}`}
          />
          <Legend verticalAlign="top" height={32} />
          {variants.flatMap((v) => [
            <Line
              key={`${v.variant_index}s`}
              type="linear"
              dataKey={keyOf(v.variant_index, 's')}
              name={`${v.variant} server`}
              stroke={variantColor(v.variant_index)}
              strokeWidth={1.5}
              dot={false}
              isAnimationActive={false}
              connectNulls
            />,
            <Line
              key={`${v.variant_index}c`}
              type="linear"
              dataKey={keyOf(v.variant_index, 'c')}
              name={`${v.variant} client`}
              stroke={variantColor(v.variant_index)}
              strokeDasharray="4 3"
              strokeWidth={1}
              dot={false}
              isAnimationActive={false}
              connectNulls
            />,
          ])}
        </LineChart>
      </ChartContainer>
    </div>
  )
}
