import type { SummaryRow } from '../client'
import { variantColor } from '../charts/palette'
import { formatMs, formatRatio } from '../format'

export function SummaryTable({ rows }: { rows: SummaryRow[] }) {
  return (
    <table className="data-table summary-table" data-testid="summary-table">
      <thead>
        <tr>
          <th>Variant</th>
          <th className="num">Iterations</th>
          <th className="num">Median (ms)</th>
          <th className="num">p95 (ms)</th>
          <th className="num">Total (s)</th>
          <th className="num">Ratio to first</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={6} className="empty">
              No results yet.
            </td>
          </tr>
        ) : (
          rows.map((r) => (
            <tr key={r.variant_index} data-testid="summary-row">
              <td>
                <span className="swatch" style={{ background: variantColor(r.variant_index) }} />
                {r.variant}
              </td>
              <td className="num">{r.iterations}</td>
              <td className="num">{formatMs(r.median_s)}</td>
              <td className="num">{formatMs(r.p95_s)}</td>
              <td className="num">{r.total_s.toFixed(2)}</td>
              <td className="num">{formatRatio(r.ratio)}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  )
}
