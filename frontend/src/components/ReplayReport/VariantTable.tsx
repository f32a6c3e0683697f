import type { ReactNode } from 'react'

export interface VariantTableRow {
  /** The row's name in its first cell (a counter, a stage, "total"). */
  label: string
  /** One cell per variant, in the table's variant order. */
  cells: ReactNode[]
}

/** A table of one fingerprint's measures (rows) on every variant (columns): the work counters, the time by stage. */
export function VariantTable({ testId, title, heads, rows }: { testId: string; title: string; heads: ReactNode[]; rows: VariantTableRow[] }) {
  return (
    <table className="table work" data-testid={testId}>
      <thead>
        <tr>
          <th>{title}</th>
          {heads.map((head, i) => (
            <th key={i}>{head}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.label}>
            <td>{row.label}</td>
            {row.cells.map((cell, i) => (
              <td key={i}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  )
}
