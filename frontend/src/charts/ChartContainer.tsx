import { useRef, type ReactElement } from 'react'
import { ResponsiveContainer } from 'recharts'
import { downloadSvgAsPng } from './exportPng'

interface Props {
  /** A single Recharts chart element (LineChart, BarChart, ...). */
  children: ReactElement
  height?: number
  title?: string
  empty?: boolean
  emptyText?: string
  /** File name for the PNG export button; no button when absent. */
  pngName?: string
}

/** The one place that wraps Recharts' ResponsiveContainer (and offers the chart as PNG). */
export function ChartContainer({ children, height = 360, title, empty, emptyText, pngName }: Props) {
  const body = useRef<HTMLDivElement>(null)
  return (
    <div className="chart-card">
      <div className="chart-head">
        {title && <h3 className="chart-title">{title}</h3>}
        {pngName && !empty && (
          <button
            type="button"
            className="btn btn-secondary btn-small"
            data-testid="chart-png"
            onClick={() => body.current && void downloadSvgAsPng(body.current, pngName)}
          >
            PNG
          </button>
        )}
      </div>
      <div className="chart-body" style={{ height }} ref={body}>
        {empty ? (
          <div className="chart-empty">{emptyText ?? 'No data yet.'}</div>
        ) : (
          <ResponsiveContainer width="100%" height="100%">
            {children}
          </ResponsiveContainer>
        )}
      </div>
    </div>
  )
}
