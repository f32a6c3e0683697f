import { useQuery } from '@tanstack/react-query'
import { Link } from 'react-router-dom'
import { ErrorBox } from './ErrorBox'
import { formatDateTime } from '../format'
import { capturesQuery } from '../queries/captures'
import { EmptyRow } from './Table/Table'

/** The captures, newest first (all targets, or `target`'s): a capture starts from its target's page. */
export function CapturesTable({ target }: { target?: string }) {
  const captures = useQuery(capturesQuery(target))
  return (
    <>
      <ErrorBox error={captures.error} />
      <table className="data-table" data-testid="captures-table">
        <thead>
          <tr>
            <th>#</th>
            {!target && <th>Target</th>}
            <th>Status</th>
            <th>Version</th>
            <th className="num">Differing variables</th>
            <th className="num">Accounts</th>
            <th className="num">Digests</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {(captures.data ?? []).map((c) => (
            <tr key={c.id} data-testid="capture-row">
              <td>
                <Link to={`/captures/${c.id}`}>#{c.id}</Link>
              </td>
              {!target && (
                <td>
                  <Link to={`/targets/${c.target}`}>{c.target}</Link>
                </td>
              )}
              <td>
                <span className={`badge badge-${c.status}`}>{c.status}</span>
              </td>
              <td>{c.version ? `${c.flavor ?? ''} ${c.version}` : '-'}</td>
              <td className="num">{c.differs ?? '-'}</td>
              <td className="num">{c.accounts ?? '-'}</td>
              <td className="num">{c.digests ?? '-'}</td>
              <td>{formatDateTime(c.created_at)}</td>
            </tr>
          ))}
          {captures.data?.length === 0 && (
            <EmptyRow columns={target ? 7 : 8}>No capture yet.</EmptyRow>
          )}
        </tbody>
      </table>
    </>
  )
}
