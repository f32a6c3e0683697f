import type { PublishedFigure } from '../../api/models'
import { TableHead } from '../../components/Table/Table'

/** The article's published series, one table row per case. */
export function PublishedFigures({ figures }: { figures: PublishedFigure[] }) {
  if (figures.length === 0) return <p className="muted">The article published no figures for this template.</p>
  return (
    <table className="data-table" data-testid="published-figures">
      <TableHead columns={['Case', 'Values']} />
      <tbody>
        {figures.map((f) => (
          <tr key={f.case}>
            <td>{f.case}</td>
            <td className="small">
              {f.points.map((point, i) => `${point}: ${f.values[i]} ${f.unit}`).join(' · ')}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
