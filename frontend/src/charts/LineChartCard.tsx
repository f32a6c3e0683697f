import { useMemo } from 'react'
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis, useXAxisScale, useYAxisScale } from 'recharts'
import { ChartContainer } from './ChartContainer'
import { cachedSvgPath, sampleIndexes, type Columns } from './paths'

// Points of the `columns` lines that go through Recharts (axes' domains, legend, tooltip), shared among
// the chart's lines (Recharts lays out an object per point: bench/open_large_run.py); the paths have all.
const SAMPLED_POINTS = 400
const SAMPLED_PER_LINE_MIN = 24

/** One line: its row key (by index: names may hold dots, which Recharts reads as paths). */
export interface LineSpec {
  key: string
  name: string
  color: string
  dashed?: boolean
  /** Draw a dot per point (few points, e.g. sweeps); off for iteration series. */
  dots?: boolean
  width?: number
  /** This line's own rows (the x key and `key`) instead of the chart's shared rows: series sampled at
   * different x positions are drawn without merging them into one sparse table. */
  data?: Record<string, number | null>[]
  /** A long series (thousands of points) as columns: drawn as one SVG path with the chart's scales
   * (charts/paths.ts); only a sample of it goes through Recharts for the axes, legend and tooltip. */
  columns?: Columns
}

/** The x axis: the row key it reads and its label (also the tooltip's). */
export interface XSpec {
  key: string
  label: string
  domain?: [number | 'dataMin' | 'auto', number | 'dataMax' | 'auto']
  scale?: 'linear' | 'log'
  ticks?: number[]
  integer?: boolean
}

/** The metric on the y axis: label, unit (axis and tooltip) and how a value is written. */
export interface MetricSpec {
  label: string
  unit: string
  format: (value: number) => string
  domain?: [number | 'auto', number | 'auto']
}

interface Props {
  /** Rows shared by every line; [] when each line brings its own `data`. */
  rows: Record<string, number | null>[]
  x: XSpec
  y: MetricSpec
  lines: LineSpec[]
  /** Card title; default "<label> (<unit>)". */
  title?: string
  height?: number
  empty: boolean
  emptyText: string
  pngName?: string
}

/** Every line chart of the UI: grid, axes with units, legend, tooltip and PNG export are here; a chart
 * is its rows and a configuration (x, metric, one line per variant with its colour). */
export function LineChartCard({ rows, x, y, lines, title, height = 300, empty, emptyText, pngName }: Props) {
  const text = title ?? `${y.label} (${y.unit})`
  // a columns line's sample, as its own rows: what its hidden <Line> gives the axes, legend and tooltip
  const sampled = useMemo(() => {
    const each = Math.max(SAMPLED_PER_LINE_MIN, Math.floor(SAMPLED_POINTS / Math.max(1, lines.length)))
    return lines.map((line) =>
      line.columns
        ? sampleIndexes(line.columns, each).map((k) => ({
            [x.key]: line.columns!.x[k],
            [line.key]: line.columns!.y[k],
          }))
        : line.data,
    )
  }, [lines, x.key])
  const paths = lines.filter((line) => line.columns)
  return (
    <ChartContainer title={text} height={height} empty={empty} emptyText={emptyText} pngName={pngName}>
      <LineChart data={rows.length > 0 ? rows : undefined} margin={{ top: 8, right: 24, bottom: 24, left: 16 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
        <XAxis
          dataKey={x.key}
          type="number"
          scale={x.scale ?? 'auto'}
          domain={x.domain ?? ['dataMin', 'dataMax']}
          ticks={x.ticks}
          allowDecimals={!x.integer}
          label={{ value: x.label, position: 'insideBottom', offset: -12 }}
        />
        <YAxis
          width={72}
          domain={y.domain ?? ['auto', 'auto']}
          tickFormatter={(v: number) => y.format(v)}
          label={{ value: y.unit, angle: -90, position: 'insideLeft', offset: -4, style: { textAnchor: 'middle' } }}
        />
        <Tooltip
          formatter={(value) => (typeof value === 'number' ? `${y.format(value)} ${y.unit}` : String(value))}
          labelFormatter={(label) => `${x.label} ${String(label)}`}
        />
        <Legend verticalAlign="top" />
        {lines.map((line, k) => (
          <Line
            key={line.key}
            type="linear"
            dataKey={line.key}
            data={sampled[k]}
            name={line.name}
            stroke={line.color}
            // a columns line is drawn by SeriesPaths; its sample only feeds the legend and tooltip
            strokeOpacity={line.columns ? 0 : undefined}
            strokeDasharray={line.dashed ? '4 3' : undefined}
            strokeWidth={line.width ?? 1.5}
            dot={line.dots ?? false}
            isAnimationActive={false}
            connectNulls
          />
        ))}
        {paths.length > 0 && <SeriesPaths lines={paths} />}
      </LineChart>
    </ChartContainer>
  )
}

/** The `columns` lines, one SVG path each, placed with the chart's own axis scales (inside the chart). */
function SeriesPaths({ lines }: { lines: LineSpec[] }) {
  const xScale = useXAxisScale()
  const yScale = useYAxisScale()
  if (!xScale || !yScale) return null
  return (
    <g className="series-paths">
      {lines.map((line) => (
        <path
          key={line.key}
          className="series-path"
          d={cachedSvgPath(line.columns!, xScale, yScale)}
          fill="none"
          stroke={line.color}
          strokeWidth={line.width ?? 1.5}
          strokeDasharray={line.dashed ? '4 3' : undefined}
          strokeLinejoin="round"
        />
      ))}
    </g>
  )
}
