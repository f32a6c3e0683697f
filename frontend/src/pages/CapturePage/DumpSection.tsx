import { Link } from 'react-router-dom'
import type { CaptureRead } from '../../client'

/** The capture's schema (and data up to its limit) as a dataset, when the API reports a dump: the
 * dataset's name, the client that wrote it, the databases, what was left out and why, or why there is
 * none; and how many of the schema's names were read. Nothing when the API sends neither. */
export function DumpSection({ capture }: { capture: CaptureRead }) {
  const dump = capture.dump
  const names = capture.identifiers?.length ?? null
  if (!dump && names === null) return null
  const leftOut = [...(dump?.left_out ?? []), ...(dump?.data_left_out ?? [])]
  return (
    <section id="capture-dump-section" data-testid="capture-dump-section">
      <h2>Schema and data</h2>
      {dump?.error && (
        <p className="notice" data-testid="capture-dump-error">
          No dataset: {dump.error}
        </p>
      )}
      {dump?.dataset && (
        <p data-testid="capture-dataset">
          Stored as dataset <Link to="/datasets">{dump.dataset}</Link>
          {dump.client && ` by ${dump.client}`}: {(dump.databases ?? []).join(', ') || 'no database'},{' '}
          {dump.data_limit_mb == null ? 'schema only' : `${dump.tables_with_data ?? 0} tables with rows (up to ${dump.data_limit_mb} MiB)`}
          {dump.bytes != null && `, ${(dump.bytes / 1048576).toFixed(1)} MiB`}.
        </p>
      )}
      {leftOut.length > 0 && (
        <details>
          <summary>{leftOut.length} left out</summary>
          <ul className="small">
            {leftOut.map((l, i) => (
              <li key={i}>
                <code>{l.name}</code>: {l.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      {names !== null && <p className="muted small">{names} names of the schema read (tables, columns, routines): a check asks the new server's parser about them.</p>}
    </section>
  )
}
