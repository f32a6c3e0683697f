import type { ReactElement } from 'react'
import { ResponsiveContainer } from 'recharts'

interface Props {
  /** A single Recharts chart element (LineChart, BarChart, ...). */
  children: ReactElement
  height?: number
  title?: string
  empty?: boolean
  emptyText?: string
}

/** The one place that wraps Recharts' ResponsiveContainer. */
export function ChartContainer({ children, height = 360, title, empty, emptyText }: Props) {
  return (
    <div className="chart-card">
      {title && <h3 className="chart-title">{title}</h3>}
      <div className="chart-body" style={{ height }}>
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
