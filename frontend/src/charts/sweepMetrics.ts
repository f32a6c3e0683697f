// Metrics a sweep chart can plot against the group's x value (thread count).
import type { GroupPoint } from '../client'

export interface SweepMetric {
  key: string
  label: string
  unit: string
  /** The point's value, or null when the group has no such metric. */
  value: (p: GroupPoint) => number | null
}

const metric = (key: string, label: string, unit: string): SweepMetric => ({
  key,
  label,
  unit,
  value: (p) => (key in p.metrics ? p.metrics[key] : null),
})

export const SWEEP_METRICS: SweepMetric[] = [
  { key: 'median_s', label: 'Median iteration time', unit: 's', value: (p) => p.median_s },
  metric('tps', 'Throughput (transactions)', 'tps'),
  metric('qps', 'Throughput (queries)', 'qps'),
  metric('p50_ms', 'Latency p50', 'ms'),
  metric('p95_ms', 'Latency p95', 'ms'),
  metric('p99_ms', 'Latency p99', 'ms'),
]

/** "threads=16" -> 16 (NaN when the group is not numeric). */
export function groupX(group: string): number {
  return Number(group.split('=').pop())
}
