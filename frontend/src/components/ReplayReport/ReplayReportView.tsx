import { useState, type ReactNode } from 'react'
import { REPLAY_GROUPS, type ReplayGroup } from '../../api/replay'
import type { FingerprintResult, ReplayReport } from '../../client'
import { useCollapsedRows } from '../CollapsedRows'
import { useHashId, useScrollToHash } from '../HashTarget'
import { FingerprintRow } from './FingerprintRow'
import { ReplaySummary } from './ReplaySummary'
import { ReplayVerdicts } from './ReplayVerdicts'
import { StatementCost } from './StatementCost'

interface Props {
  report: ReplayReport
  /** Shown under a row's fingerprint (the signed-in page's "Find a fix"; none on a share link). */
  rowExtra?: (fingerprint: FingerprintResult) => ReactNode
  /** After the findings (the signed-in page's fix searches). */
  below?: ReactNode
  /** What was replayed and how (dataset, statements, rounds, each variant's settings): the method
   * section's first lines, above the per-statement cost and the summary table. */
  method?: ReactNode
}

/** The report, its answer first: one verdict line per variant, then the findings (group tabs with counts,
 * breaks and slower first, a search over fingerprints and statements, expandable rows, collapsed past
 * 20 with their count); below them how it was measured: `method`, the per-statement cost per variant
 * and the per-variant summary table with the clock, statistics and false-discovery control. */
export function ReplayReportView({ report, rowExtra, below, method }: Props) {
  // an evidence link names a fingerprint (`#fp-<id>`): its row is shown opened, scrolled to and marked
  const hashId = useHashId()
  const named = hashId.startsWith('fp-') ? hashId.slice(3) : ''
  const [group, setGroup] = useState<ReplayGroup | 'all'>('all')
  const [search, setSearch] = useState('')
  const [open, setOpen] = useState<string | null>(named || null)
  const [openedFor, setOpenedFor] = useState(named)
  if (openedFor !== named) {
    // the address names another row (a link followed on this page): that one is opened
    setOpenedFor(named)
    setOpen(named || null)
  }
  const needle = search.trim().toLowerCase()
  const rank = (g: ReplayGroup) => (REPLAY_GROUPS.indexOf(g) + REPLAY_GROUPS.length + 1) % (REPLAY_GROUPS.length + 1)
  const shown = report.fingerprints
    .filter(
      (f) =>
        (group === 'all' || f.group === group) &&
        (!needle || f.fingerprint.includes(needle) || f.statements.some((s) => s.sql.toLowerCase().includes(needle))),
    )
    .sort((a, b) => rank(a.group) - rank(b.group)) // "slower, plan changed" right after breaks
  const reveal = named ? shown.findIndex((f) => f.fingerprint_id === named) : -1
  const { shown: rows, toggle } = useCollapsedRows(shown, 'fingerprints-more', undefined, reveal)
  useScrollToHash(hashId)
  return (
    <>
      <ReplayVerdicts report={report} />
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
            {g} ({report.groups[g] ?? 0})
          </button>
        ))}
        <input placeholder="search SQL" value={search} onChange={(e) => setSearch(e.target.value)} name="search" />
      </div>
      <div className="table-box">
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
            {rows.map((f) => (
              <FingerprintRow
                key={f.fingerprint_id}
                report={f}
                variants={report.variants.map((v) => v.name)}
                open={open === f.fingerprint_id}
                marked={named === f.fingerprint_id}
                onToggle={() => setOpen(open === f.fingerprint_id ? null : f.fingerprint_id)}
                extra={rowExtra?.(f)}
              />
            ))}
          </tbody>
        </table>
      </div>
      {toggle}
      {below}
      <section data-testid="replay-method">
        <h2>How it was measured</h2>
        {method}
        <StatementCost costs={report.per_statement_cost} baseline={report.baseline} />
        <ReplaySummary report={report} />
      </section>
    </>
  )
}
