import { useQuery } from '@tanstack/react-query'
import { Link } from 'react-router-dom'
import { ErrorBox } from '../../components/ErrorBox'
import { NewReplayForm } from './NewReplayForm'
import { replaysQuery } from '../../queries/replays'
import { TableHead } from '../../components/Table/Table'

/** /replays: start a replay of a query file on a dataset across variants; the latest replays. */
export function ReplaysPage() {
  const replays = useQuery({ ...replaysQuery(), refetchInterval: 3000 })
  return (
    <div className="page">
      <div className="page-header">
        <h1>Replays</h1>
      </div>
      <NewReplayForm />
      <ErrorBox error={replays.error} />
      <table className="table" data-testid="replays-table">
        <TableHead columns={['#', 'Name', 'Status', 'Statements', 'Variants']} />
        <tbody>
          {(replays.data ?? []).map((replay) => (
            <tr key={replay.id}>
              <td>{replay.id}</td>
              <td>
                <Link to={`/replays/${replay.id}`}>{replay.name}</Link>
              </td>
              <td>
                <span className={`badge badge-${replay.status}`}>{replay.status}</span>
              </td>
              <td>{replay.statements}</td>
              <td>{replay.variants.map((v) => v.name).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
