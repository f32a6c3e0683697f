import { useState, type ReactNode } from 'react'

/** Rows a table shows before it is opened: a long table (a capture's 127 statements, 600 variables,
 * 48 changed defaults) must not push what comes after it off the screen. */
export const COLLAPSED_ROWS = 20

/** The first `limit` of `rows` (all once opened) and the control that opens or closes the table,
 * naming the count ("Show all 127 (20 shown)"); no control when `rows` fit. `reveal`: the index of a
 * row that must be shown (the one the page's address names): past `limit`, the table opens. */
export function useCollapsedRows<T>(
  rows: readonly T[],
  testId: string,
  limit: number = COLLAPSED_ROWS,
  reveal: number = -1,
): { shown: readonly T[]; toggle: ReactNode } {
  const [chosen, setOpen] = useState<boolean | null>(null) // the reader's choice, once made
  const open = chosen ?? reveal >= limit
  if (rows.length <= limit) return { shown: rows, toggle: null }
  const toggle = (
    <button type="button" className="btn btn-small" data-testid={testId} onClick={() => setOpen(!open)}>
      {open ? `Show the first ${limit}` : `Show all ${rows.length} (${limit} shown)`}
    </button>
  )
  return { shown: open ? rows : rows.slice(0, limit), toggle }
}
