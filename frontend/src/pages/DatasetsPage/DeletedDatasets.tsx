import type { Dataset } from '../../api/models'
import { formatDateTime } from '../../format'
import { TableHead } from '../../components/Table/Table'

const MB = 1024 * 1024

/** The deleted datasets, apart: what their replay reports ran on (name, sha256, size, tables per
 * target), when and by whom they were deleted, and whether their copies are still being removed. */
export function DeletedDatasets({ datasets }: { datasets: Dataset[] }) {
  if (datasets.length === 0) return null
  return (
    <>
      <h2>Deleted</h2>
      <p className="muted">
        Their replay reports are kept. To replay on one again, upload its dump again: it is the same dump when its
        sha256 is the one shown here.
      </p>
      <table className="table" data-testid="deleted-datasets">
        <TableHead columns={['Name', 'Size', 'sha256', 'Tables', 'Reports kept', 'Deleted', 'Copies on targets']} />
        <tbody>
          {datasets.map((dataset) => (
            <tr key={dataset.id} data-testid={`deleted-dataset-${dataset.id}`}>
              <td>{dataset.name}</td>
              <td>{(dataset.size_bytes / MB).toFixed(1)} MB</td>
              <td>
                <code style={{ wordBreak: 'break-all' }}>{dataset.sha256}</code>
              </td>
              <td>
                {Object.entries(dataset.loads)
                  .sort(([a], [b]) => a.localeCompare(b))
                  .map(([target, load]) => (
                    <div key={target}>
                      {target}: {load.tables.map((t) => `${t.name} (${t.rows.toLocaleString()} rows)`).join(', ')}
                    </div>
                  ))}
              </td>
              <td>{dataset.replay_count}</td>
              <td>
                {formatDateTime(dataset.deleted_at)} by {dataset.deleted_by ?? '?'}
              </td>
              <td>
                {dataset.copies_pending?.length ? (
                  <span className="muted">being removed from {dataset.copies_pending.join(', ')}</span>
                ) : dataset.copies_failed && Object.keys(dataset.copies_failed).length ? (
                  // its removal failed after its tries: the copies are still there (issue 44)
                  <span className="error" data-testid="copies-failed">
                    not removed:{' '}
                    {Object.entries(dataset.copies_failed)
                      .map(([target, errors]) => `${target} (${errors.join('; ')})`)
                      .join(', ')}
                  </span>
                ) : (
                  'removed'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}
