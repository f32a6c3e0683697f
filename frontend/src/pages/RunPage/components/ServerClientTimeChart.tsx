import { useMemo } from 'react'
import type { VariantProbes } from '../../../client'
import { LineChartCard } from '../../../charts/LineChartCard'
import { STATEMENT_TIME } from '../../../charts/metrics'
import { variantColor } from '../../../charts/palette'
import { columnsOf, keyOf } from './probeColumns'

const ms = (s: number | null | undefined) => (s == null ? null : s * 1000)

/** Per iteration and variant: server-side statement time (solid, from performance_schema TIMER_WAIT)
 * and client-side time (dashed, perf_counter); the gap is the harness's own overhead. */
export function ServerClientTimeChart({ variants }: { variants: VariantProbes[] }) {
  const lines = useMemo(
    () =>
      variants.flatMap((v) => [
        {
          key: keyOf(v.variant_index, 's'),
          name: `${v.variant} server`,
          color: variantColor(v.variant_index),
          columns: columnsOf(v, (p) => ms(p.server_s)),
        },
        {
          key: keyOf(v.variant_index, 'c'),
          name: `${v.variant} client`,
          color: variantColor(v.variant_index),
          dashed: true,
          width: 1,
          columns: columnsOf(v, (p) => ms(p.client_s)),
        },
      ]),
    [variants],
  )
  const points = lines.reduce((n, line) => n + line.columns.x.length, 0)
  const serverPoints = lines.reduce((n, line) => n + (line.dashed ? 0 : line.columns.x.length), 0)
  return (
    <div
      data-testid="server-client-chart"
      data-points={String(points)}
      data-server-points={String(serverPoints)}
    >
      <LineChartCard
        rows={[]}
        x={{ key: 'iteration', label: 'iteration', integer: true }}
        y={STATEMENT_TIME}
        lines={lines}
        height={300}
        empty={points === 0}
        emptyText="No iterations recorded yet."
      />
    </div>
  )
}
