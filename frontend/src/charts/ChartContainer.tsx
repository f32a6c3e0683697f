import { useLayoutEffect, useRef, useState, type ReactElement } from 'react'
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
  // The body's size, read before the first paint: ResponsiveContainer then draws the chart in its first
  // render instead of after its own measuring effect and a second pass (a frame or more later).
  const [initial, setInitial] = useState<{ width: number; height: number } | null>(null)
  useLayoutEffect(() => {
    if (body.current && !initial) {
      const box = body.current.getBoundingClientRect()
      setInitial({ width: Math.round(box.width), height: Math.round(box.height) })
    }
  }, [initial])
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
          initial && (
            <ResponsiveContainer width="100%" height="100%" initialDimension={initial}>
              {children}
            </ResponsiveContainer>
          )
        )}
      </div>
    </div>
  )
}
