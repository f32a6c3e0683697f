// The metrics the line charts draw: label, unit and how a value is written (axis and tooltip).
import type { MetricSpec } from './LineChartCard'

/** Milliseconds: two decimals below 100 ms, none above. */
export const formatMsValue = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(2))

export const ITERATION_TIME: MetricSpec = { label: 'Iteration time', unit: 'ms', format: formatMsValue }

/** 1 - reads / read_requests, in %. */
export const HIT_RATE: MetricSpec = {
  label: 'Buffer pool hit rate',
  unit: '%',
  format: (v) => v.toFixed(2),
  domain: ['auto', 100],
}

/** performance_schema TIMER_WAIT (server) beside perf_counter (client), per iteration. */
export const STATEMENT_TIME: MetricSpec = {
  label: 'Server-side (solid) vs client-side (dashed) time per iteration',
  unit: 'ms',
  format: formatMsValue,
}

/** A per-round median of a template's metric: seconds drawn in ms, others (tps, p95_ms) as they are. */
export function roundMetric(metric: string, unit: string): MetricSpec {
  return { label: `Per-round median, ${metric}`, unit, format: (v) => v.toPrecision(3) }
}
