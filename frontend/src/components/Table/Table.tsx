import type { ReactNode } from 'react'

/** A column's header: its text, or its text with a class (`num`: right-aligned figures) and a tooltip. */
export type Column = string | { label: ReactNode; className?: string; title?: string }

/** A table's header row, one `<th>` a column (an empty string: a column without a title, e.g. a
 * row's buttons). Every table of the app heads its columns with it. */
export function TableHead({ columns }: { columns: Column[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column, i) =>
          typeof column === 'string' ? (
            <th key={i}>{column || null}</th>
          ) : (
            <th key={i} className={column.className} title={column.title}>
              {column.label}
            </th>
          ),
        )}
      </tr>
    </thead>
  )
}

/** The one row of a table with nothing to show, across its `columns` columns ("No account."). */
export function EmptyRow({ columns, children }: { columns: number; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={columns} className="empty">
        {children}
      </td>
    </tr>
  )
}

/** A column of figures: right-aligned (`num`), as every table sets its numbers. */
export const num = (label: string): Column => ({ label, className: 'num' })
