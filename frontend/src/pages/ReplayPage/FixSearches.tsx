import { Link } from 'react-router-dom'
import type { FixSearchRead } from '../../client'
import { searchState } from './findFix'
import { TableHead } from '../../components/Table/Table'

/** The replay's fix searches, newest first: fingerprint, variant, status and outcome, each linked. */
export function FixSearches({ searches }: { searches: FixSearchRead[] }) {
  if (searches.length === 0) return null
  return (
    <details open data-testid="fix-searches">
      <summary>Fix searches ({searches.length})</summary>
      <table className="table">
        <TableHead columns={['#', 'Fingerprint', 'Variant', 'Status', 'Outcome']} />
        <tbody>
          {searches.map((s) => (
            <tr key={s.id}>
              <td>
                <Link to={`/fixsearches/${s.id}`}>{s.id}</Link>
              </td>
              <td>
                <code>{s.fingerprint}</code>
              </td>
              <td>{s.variant}</td>
              <td>
                <span className={`badge badge-${s.status}`}>{s.status}</span>
              </td>
              <td>{s.result ? searchState(s) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  )
}
