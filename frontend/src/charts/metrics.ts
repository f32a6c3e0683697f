// Metric -> label / unit / colour / conversion config for charts.

export type MetricKey = 'elapsed_ms'

export interface MetricConfig {
  label: string
  axisLabel: string
  unit: string
  /** Default colour when a chart shows a single series. */
  color: string
  /** Convert a raw point value (seconds) into the displayed unit. */
  fromSeconds: (s: number) => number
  format: (v: number) => string
}

export const METRICS: Record<MetricKey, MetricConfig> = {
  elapsed_ms: {
    label: 'Iteration time',
    axisLabel: 'ms per iteration',
    unit: 'ms',
    color: '#2563eb',
    fromSeconds: (s) => s * 1000,
    format: (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(2)),
  },
}
