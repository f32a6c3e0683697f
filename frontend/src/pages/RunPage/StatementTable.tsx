import { useQuery } from '@tanstack/react-query'
import type { StatementRow } from '../../client'
import { variantColor } from '../../charts/palette'
import { formatMs } from '../../format'
import { runStatementsQuery } from '../../queries/runs'

const POLL_MS = 2000

/** Per-statement medians side by side: which statement (INSERT or TRUNCATE) makes the difference. */
export function StatementTable({ runId, live }: { runId: number; live: boolean }) {
  const statements = useQuery({
    ...runStatementsQuery(runId),
    refetchInterval: live ? POLL_MS : false,
  })
  const rows: StatementRow[] = statements.data ?? []
  const variants = [...new Map(rows.map((r) => [r.variant_index, r.variant])).entries()]
  const labels = [...new Set(rows.map((r) => r.statement))]
  const cell = new Map(rows.map((r) => [`${r.variant_index}|${r.statement}`, r]))
  if (rows.length === 0) return null
  return (
    <>
      <h2>Median per statement (ms)</h2>
      <table className="data-table" data-testid="statement-table">
        <thead>
          <tr>
            <th>Statement</th>
            {variants.map(([index, name]) => (
              <th key={index} className="num">
                <span className="swatch" style={{ background: variantColor(index) }} />
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {labels.map((label) => (
            <tr key={label}>
              <td>
                <code>{label}</code>
              </td>
              {variants.map(([index]) => {
                const row = cell.get(`${index}|${label}`)
                return (
                  <td key={index} className="num" title={row ? `p95 ${formatMs(row.p95_s)} ms, n=${row.count}` : ''}>
                    {row ? formatMs(row.median_s) : '-'}
                  </td>
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}
