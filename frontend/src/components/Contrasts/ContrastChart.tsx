import { CartesianGrid, Cell, ErrorBar, ReferenceLine, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from 'recharts'
import type { ContrastRead } from '../../client'
import { ChartContainer } from '../../charts/ChartContainer'
import { variantColor } from '../../charts/palette'
import { contrastPoints } from './contrastRows'

/** Each variant's contrasts as a point with its 95 % interval on a log ratio axis (1 = no effect). */
export function ContrastChart({ rows, pngName }: { rows: ContrastRead[]; pngName?: string }) {
  const points = contrastPoints(rows)
  const bounds = points.flatMap((p) => [p.ratio - p.error[0], p.ratio + p.error[1]]).filter((v) => v > 0)
  const low = Math.min(0.5, ...bounds) * 0.9
  const high = Math.max(2, ...bounds) * 1.1
  return (
    <ChartContainer
      title="Contrasts (ratio, 95 % interval)"
      height={Math.max(160, 40 + 32 * points.length)}
      empty={points.length === 0}
      emptyText="No contrast has a value."
      pngName={pngName}
    >
      <ScatterChart margin={{ top: 8, right: 24, bottom: 24, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis
          type="number"
          dataKey="ratio"
          scale="log"
          domain={[low, high]}
          allowDataOverflow
          tickFormatter={(v: number) => `${Number(v.toPrecision(2))}x`}
          label={{ value: 'ratio (log scale)', position: 'insideBottom', offset: -12 }}
        />
        <YAxis type="category" dataKey="label" width={260} interval={0} reversed />
        <Tooltip />
        <ReferenceLine x={1} stroke="#6b7280" />
        {/* one Scatter: a category axis places the points of several Scatters by their own index */}
        <Scatter data={points} isAnimationActive={false}>
          {points.map((p) => (
            <Cell key={p.label} fill={variantColor(p.variantIndex)} />
          ))}
          <ErrorBar dataKey="error" direction="x" width={6} stroke="#374151" />
        </Scatter>
      </ScatterChart>
    </ChartContainer>
  )
}
