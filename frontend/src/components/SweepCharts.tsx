import type { GroupPoint } from '../client'
import { SweepChart } from '../charts/SweepChart'
import { SWEEP_METRICS } from '../charts/sweepMetrics'

/** Throughput and latency (p50/p95/p99) against the swept value, for the metrics the run has. */
export function SweepCharts({ points, sweep }: { points: GroupPoint[]; sweep: string }) {
  const present = SWEEP_METRICS.filter((m) => points.some((p) => m.value(p) !== null))
  return (
    <div className="sweep-charts" data-testid="sweep-charts">
      {present.map((m) => (
        <SweepChart key={m.key} points={points} sweep={sweep} metric={m} />
      ))}
    </div>
  )
}
