import { useMemo } from 'react'
import type { VariantProbes } from '../../../client'
import { LineChartCard } from '../../../charts/LineChartCard'
import { HIT_RATE } from '../../../charts/metrics'
import { variantColor } from '../../../charts/palette'
import { columnsOf, keyOf } from './probeColumns'

/** Buffer pool hit rate per iteration (1 - reads/read_requests, %), one line per variant.
 * Iterations without read requests have no point (undefined, not 100%). */
export function HitRateChart({ variants }: { variants: VariantProbes[] }) {
  const lines = useMemo(
    () =>
      variants.map((v) => ({
        key: keyOf(v.variant_index),
        name: v.variant,
        color: variantColor(v.variant_index),
        columns: columnsOf(v, (p) => (p.hit_rate == null ? null : p.hit_rate * 100)),
      })),
    [variants],
  )
  const points = lines.reduce((n, line) => n + line.columns.x.length, 0)
  return (
    <div data-testid="hit-rate-chart" data-points={String(points)}>
      <LineChartCard
        rows={[]}
        x={{ key: 'iteration', label: 'iteration', integer: true }}
        y={HIT_RATE}
        lines={lines}
        height={280}
        empty={points === 0}
        emptyText="No hit rate yet (no iterations, or no read requests)."
      />
    </div>
  )
}
