import type { Dataset } from '../../api/models'
import { deleteQuestion } from './deleteQuestion'

const MB = 1024 * 1024

interface Props {
  dataset: Dataset
  open: boolean
  onToggle: () => void
  onDelete: () => void
}

/** One dataset; opened, its tables (rows, MB) on each target it was loaded on. Delete asks first
 * (deleteQuestion: the replay reports measured on it are kept). */
export function DatasetRow({ dataset, open, onToggle, onDelete }: Props) {
  const loads = dataset.loads
  const targets = Object.keys(loads).sort()
  return (
    <>
      <tr data-testid={`dataset-${dataset.name}`}>
        <td>
          <button type="button" className="btn btn-secondary btn-small" onClick={onToggle} aria-expanded={open}>
            {open ? '▾' : '▸'} {dataset.name}
          </button>
        </td>
        <td>{(dataset.size_bytes / MB).toFixed(1)} MB</td>
        <td>{dataset.compression}</td>
        <td>
          <code>{dataset.database}</code>
        </td>
        <td>{targets.length ? targets.join(', ') : <span className="muted">not loaded yet</span>}</td>
        <td data-testid={`dataset-reports-${dataset.name}`}>{dataset.replay_count}</td>
        <td>
          <button
            type="button"
            className="btn btn-danger btn-small"
            onClick={() => window.confirm(deleteQuestion(dataset)) && onDelete()}
          >
            Delete
          </button>
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={7}>
            <div className="muted">sha256 {dataset.sha256}</div>
            {targets.map((target) => (
              <div key={target} data-testid={`dataset-load-${target}`}>
                <strong>{target}</strong> ({loads[target].version}
                {loads[target].reused ? ', reused' : `, loaded in ${loads[target].elapsed_s} s`})
                <table className="table">
                  <tbody>
                    {loads[target].tables.map((table) => (
                      <tr key={table.name}>
                        <td>{table.name}</td>
                        <td>{table.rows.toLocaleString()} rows</td>
                        <td>{(table.bytes / MB).toFixed(2)} MB</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ))}
          </td>
        </tr>
      )}
    </>
  )
}
