import type { SummaryRow } from '../client'
import { variantColor } from '../charts/palette'
import { formatMs, formatRatio } from '../format'
import { EmptyRow, TableHead } from './Table/Table'

export function SummaryTable({ rows }: { rows: SummaryRow[] }) {
  return (
    <table className="data-table summary-table" data-testid="summary-table">
      <TableHead
        columns={[
          'Variant',
          { label: "Iterations", className: "num" },
          { label: "Median (ms)", className: "num" },
          { label: "p95 (ms)", className: "num" },
          { label: "Total (s)", className: "num" },
          { label: "Ratio to first", className: "num" },
        ]}
      />
      <tbody>
        {rows.length === 0 ? (
          <EmptyRow columns={6}>No results yet.</EmptyRow>
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
