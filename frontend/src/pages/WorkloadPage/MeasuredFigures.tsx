import type { IterationRow } from '../../client'
import { TableHead } from '../../components/Table/Table'

/** The latest run in the article's shape: per variant and group, seconds of run 1, 2, ... in order. */
export function MeasuredFigures({ iterations }: { iterations: IterationRow[] }) {
  const rows = new Map<string, { label: string; values: number[] }>()
  for (const it of iterations) {
    const label = it.group ? `${it.variant} · ${it.group}` : it.variant
    const row = rows.get(label) ?? { label, values: [] }
    row.values.push(it.elapsed_s)
    rows.set(label, row)
  }
  if (rows.size === 0) return <p className="muted">No iterations measured yet.</p>
  return (
    <table className="data-table" data-testid="measured-figures">
      <TableHead columns={['Variant \u00b7 group', 'Seconds, run 1, 2, \u2026']} />
      <tbody>
        {[...rows.values()].map((row) => (
          <tr key={row.label}>
            <td>{row.label}</td>
            <td className="small">{row.values.map((v) => v.toFixed(v >= 1 ? 2 : 4)).join(' · ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
