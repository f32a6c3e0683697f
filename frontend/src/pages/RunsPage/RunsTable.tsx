import { Link } from 'react-router-dom'
import type { Run } from '../../api/models'
import { StatusBadge } from '../../components/StatusBadge'
import { formatDateTime, formatDuration } from '../../format'
import { EmptyRow } from '../../components/Table/Table'

interface Props {
  runs: Run[]
  /** Reference "now" for durations of unfinished runs (the data's fetch time). */
  now: number
  /** Runs ticked for comparison, and how to tick one (no checkbox column when absent). */
  selected?: ReadonlySet<number>
  onToggle?: (runId: number) => void
}

export function RunsTable({ runs, now, selected, onToggle }: Props) {
  return (
    <table className="data-table" data-testid="runs-table">
      <thead>
        <tr>
          {onToggle && <th aria-label="compare" />}
          <th className="num">ID</th>
          <th>Name</th>
          <th>Workload</th>
          <th>Variants</th>
          <th>Status</th>
          <th>Created</th>
          <th className="num">Duration</th>
        </tr>
      </thead>
      <tbody>
        {runs.length === 0 ? (
          <EmptyRow columns={onToggle ? 8 : 7}>No runs yet. <Link to="/new">Start one</Link>.</EmptyRow>
        ) : (
          runs.map((run) => (
            <tr key={run.id} data-testid="run-row" data-run-id={run.id}>
              {onToggle && (
                <td>
                  <input
                    type="checkbox"
                    aria-label={`compare run ${run.id}`}
                    data-testid="run-select"
                    checked={selected?.has(run.id) ?? false}
                    onChange={() => onToggle(run.id)}
                  />
                </td>
              )}
              <td className="num">
                <Link to={`/runs/${run.id}`}>#{run.id}</Link>
              </td>
              <td>
                <Link to={`/runs/${run.id}`}>{run.name || <span className="muted">(unnamed)</span>}</Link>
              </td>
              <td className="mono">{run.workload}</td>
              <td className="variants-cell">{run.variants.join(', ')}</td>
              <td>
                <StatusBadge status={run.status} />
              </td>
              <td className="nowrap">{formatDateTime(run.created_at)}</td>
              <td className="num nowrap">{formatDuration(run.started_at, run.finished_at, now)}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  )
}
