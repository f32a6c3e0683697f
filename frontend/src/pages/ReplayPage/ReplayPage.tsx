import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useParams } from 'react-router-dom'
import { REPLAY_GROUPS, replayApi, type ReplayGroup } from '../../api/replay'
import { ErrorBox } from '../../components/ErrorBox'
import { FingerprintRow } from './FingerprintRow'
import { ReplayProgress } from './ReplayProgress'

/** /replays/:id: what changes per fingerprint, grouped (breaks, plan changes, slower, faster, same). */
export function ReplayPage() {
  const { id = '' } = useParams()
  const replay = useQuery({
    queryKey: ['replay', id],
    queryFn: () => replayApi.replay(id),
    refetchInterval: (q) => (q.state.data && ['succeeded', 'failed'].includes(q.state.data.status) ? false : 1500),
  })
  const [group, setGroup] = useState<ReplayGroup | 'all'>('all')
  const [search, setSearch] = useState('')
  const [open, setOpen] = useState<string | null>(null)
  const data = replay.data
  if (!data) return <div className="page"><ErrorBox error={replay.error} /></div>
  const report = data.report
  const needle = search.trim().toLowerCase()
  const shown = (report?.fingerprints ?? []).filter(
    (f) =>
      (group === 'all' || f.group === group) &&
      (!needle || f.fingerprint.includes(needle) || f.statements.some((s) => s.sql.toLowerCase().includes(needle))),
  )
  return (
    <div className="page">
      <div className="page-header">
        <h1>{data.name}</h1>
        <span className={`badge badge-${data.status}`} data-testid="replay-status">
          {data.status}
        </span>
      </div>
      <p className="muted">
        Dataset {data.dataset}, {data.statements} statements ({data.source_format}), {data.repeats} repeats, variants{' '}
        {data.variants.map((v) => v.name).join(', ')} (baseline first).
        {report && (
          <>
            {' '}
            Export <a href={`/api/replays/${data.id}/export?format=csv`}>CSV</a> ·{' '}
            <a href={`/api/replays/${data.id}/export?format=json`}>JSON</a>
          </>
        )}
      </p>
      {data.progress && <ReplayProgress progress={data.progress} />}
      <ErrorBox error={data.error} title="Replay failed" testId="replay-failure" />
      {data.skipped_writes.length > 0 && (
        <details data-testid="skipped-writes">
          <summary>{data.skipped_writes.length} writes skipped (read-only replay)</summary>
          <ul>
            {data.skipped_writes.map((s, i) => (
              <li key={i}>
                <code>{s.sql}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
      {report && (
        <>
          <div className="toolbar" role="tablist">
            <button type="button" className={`btn btn-small ${group === 'all' ? 'btn-primary' : 'btn-secondary'}`} onClick={() => setGroup('all')}>
              all ({report.fingerprints.length})
            </button>
            {REPLAY_GROUPS.map((g) => (
              <button
                key={g}
                type="button"
                data-testid={`group-${g}`}
                className={`btn btn-small ${group === g ? 'btn-primary' : 'btn-secondary'}`}
                onClick={() => setGroup(g)}
              >
                {g} ({report.groups[g]})
              </button>
            ))}
            <input placeholder="search SQL" value={search} onChange={(e) => setSearch(e.target.value)} name="search" />
          </div>
          <table className="table" data-testid="fingerprints">
            <thead>
              <tr>
                <th>Group</th>
                <th>Fingerprint</th>
                {report.variants.map((v) => (
                  <th key={v.name} title={v.version}>
                    {v.name} median
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((f) => (
                <FingerprintRow
                  key={f.fingerprint_id}
                  report={f}
                  variants={report.variants.map((v) => v.name)}
                  open={open === f.fingerprint_id}
                  onToggle={() => setOpen(open === f.fingerprint_id ? null : f.fingerprint_id)}
                />
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  )
}
