import { useMemo } from 'react'
import type { VariantProbes } from '../../../client'
import { LineChartCard } from '../../../charts/LineChartCard'
import { STATEMENT_TIME } from '../../../charts/metrics'
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
      <LineChartCard
        rows={rows}
        x={{ key: 'iteration', label: 'iteration', integer: true }}
        y={STATEMENT_TIME}
        lines={variants.flatMap((v) => [
          { key: keyOf(v.variant_index, 's'), name: `${v.variant} server`, color: variantColor(v.variant_index) },
          {
            key: keyOf(v.variant_index, 'c'),
            name: `${v.variant} client`,
            color: variantColor(v.variant_index),
            dashed: true,
            width: 1,
          },
        ])}
        height={300}
        empty={points === 0}
        emptyText="No iterations recorded yet."
      />
    </div>
  )
}
