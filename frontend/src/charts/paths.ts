// Long series (iteration charts: thousands of points per variant) are drawn as one SVG path per line from
// their columns, with the chart's own scales, instead of Recharts' <Line>, which builds an object and a
// layout entry per point (bench/open_large_run.py: ~0.5 s of main thread for 8 x 1,040 points). A small
// sample of each series still goes through a hidden <Line> so the axes' domains, the legend and the
// tooltip stay Recharts'.

/** A series as columns: x values ascending and their y values (same length). */
export interface Columns {
  x: number[]
  y: number[]
}

/** Maps a data value to a pixel coordinate (Recharts' useXAxisScale / useYAxisScale); undefined off-axis. */
export type Scale = (value: number) => number | undefined

/** The SVG path data ("M x,y L x,y ...", pixels to 0.1 px) of a series; points a scale cannot place
 * (null values, outside a log axis) are skipped, so the line joins over them like connectNulls. */
export function svgPath({ x, y }: Columns, xScale: Scale, yScale: Scale): string {
  const parts: string[] = []
  for (let k = 0; k < x.length; k++) {
    if (y[k] == null || !Number.isFinite(y[k])) continue
    const px = xScale(x[k])
    const py = yScale(y[k])
    if (px == null || py == null || !Number.isFinite(px) || !Number.isFinite(py)) continue
    parts.push(`${parts.length === 0 ? 'M' : 'L'}${px.toFixed(1)},${py.toFixed(1)}`)
  }
  return parts.join('')
}

// The last path drawn per series and the scale positions it was drawn at: Recharts renders the chart
// several times while its axes settle, each time with a new scale function but mostly the same mapping.
const drawn = new WeakMap<Columns, { at: string; d: string }>()

/** svgPath(), computed again only when the scales place the series' extremes elsewhere (a linear or log
 * scale is fixed by two points; the x and y extremes give two per axis). */
export function cachedSvgPath(columns: Columns, xScale: Scale, yScale: Scale): string {
  const { x, y } = columns
  let low = Infinity
  let high = -Infinity
  for (const value of y) {
    if (value == null || !Number.isFinite(value)) continue
    low = Math.min(low, value)
    high = Math.max(high, value)
  }
  const at = [xScale(x[0]), xScale(x[x.length - 1]), yScale(low), yScale(high)].join(',')
  const last = drawn.get(columns)
  if (last?.at === at) return last.d
  const d = svgPath(columns, xScale, yScale)
  drawn.set(columns, { at, d })
  return d
}

/** At most about `count` indexes of a series, evenly spaced, always with its first, last, lowest and
 * highest point (so an 'auto' axis domain computed from the sample covers the whole series). */
export function sampleIndexes({ y }: Columns, count: number): number[] {
  const n = y.length
  if (n <= count) return Array.from(y.keys())
  const kept = new Set<number>([0, n - 1])
  const step = (n - 1) / Math.max(1, count - 1)
  for (let k = 0; k < count; k++) kept.add(Math.round(k * step))
  let low = 0
  let high = 0
  for (let k = 1; k < n; k++) {
    if (y[k] < y[low]) low = k
    if (y[k] > y[high]) high = k
  }
  kept.add(low)
  kept.add(high)
  return [...kept].sort((a, b) => a - b)
}
