import type { SummaryRow } from '../client'
import { variantColor } from '../charts/palette'
import { formatMs, formatRatio } from '../format'
import { EmptyRow, num, TableHead } from './Table/Table'

export function SummaryTable({ rows }: { rows: SummaryRow[] }) {
  return (
    <table className="data-table summary-table" data-testid="summary-table">
      <TableHead
        columns={[
          'Variant', num('Iterations'), num('Median (ms)'), num('p95 (ms)'), num('Total (s)'),
          num('Ratio to first'),
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
