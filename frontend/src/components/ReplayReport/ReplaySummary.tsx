import type { ReplayReport } from '../../client'
import { CauseCounts } from './WorkCounters'

const pct = (v: number | null | undefined) => (v == null ? '–' : `${(v * 100).toFixed(0)} %`)

/** The summary the report opens with (replay/report.py VariantSummary): per variant against the baseline, each
 * finding of a fingerprint in its own column (a regression inside a break is in breaks and in slower, "1 also a
 * break"): breaks, slower (with a plan change, timed out), faster (with a plan change), changed by the per-statement cost
 * only (slower / faster), same, undecided (with the median smallest
 * detectable change), refused writes, timeouts; then the clock, when the statistics were computed and the
 * false-discovery control (and, sharded over a pool's hosts, where each shard ran and its rounds). */
export function ReplaySummary({ report }: { report: ReplayReport }) {
  if (!report.summary.length) return null
  const analysed = report.variants.filter((v) => v.statistics_at)
  return (
    <section className="table-box" data-testid="replay-summary">
      <table className="table">
        <thead>
          <tr>
            <th>vs {report.baseline}</th>
            <th>breaks (new errors / result changes)</th>
            <th>slower (plan changed / timed out)</th>
            <th>faster (plan changed)</th>
            <th>per-statement cost only (slower / faster)</th>
            <th>same</th>
            <th>undecided (median smallest detectable change)</th>
            <th>refused writes</th>
            <th>timeouts</th>
            <th>slower / faster by cause</th>
          </tr>
        </thead>
        <tbody>
          {report.summary.map((s) => (
            <tr key={s.variant} data-testid={`summary-${s.variant}`}>
              <td title={s.version}>{s.variant}</td>
              <td>
                {s.breaks} ({s.new_errors} / {s.result_changes})
              </td>
              <td data-testid="summary-slower">
                {s.slower} ({s.slower_plan_changed} / {s.slower_timed_out})
                {s.slower_also_break > 0 && <div className="muted">{s.slower_also_break} also a break</div>}
              </td>
              <td data-testid="summary-faster">
                {s.faster} ({s.faster_plan_changed})
                {s.faster_also_break > 0 && <div className="muted">{s.faster_also_break} also a break</div>}
              </td>
              <td data-testid="summary-cost-only">
                {s.slower_cost_only} / {s.faster_cost_only}
              </td>
              <td>{s.same}</td>
              <td>
                {s.undecided} ({pct(s.undecided_median_mde)})
              </td>
              <td>{s.refused}</td>
              <td>{s.timeouts}</td>
              <td>
                <CauseCounts summary={s} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        {report.timing && <span data-testid="replay-timing">{report.timing[0].toUpperCase() + report.timing.slice(1)}. </span>}
        {!report.timing && report.clock && <>Timed by the {report.clock === 'server' ? 'server clock (performance_schema TIMER_WAIT)' : 'client clock'}. </>}
        {analysed.length > 0 && (
          <>
            Statistics computed (ANALYZE TABLE):{' '}
            {analysed.map((v) => `${v.name} ${new Date(v.statistics_at as string).toISOString().replace('T', ' ').slice(0, 19)} UTC`).join(', ')}.{' '}
          </>
        )}
        {report.fdr}
        {report.extension && <span data-testid="replay-extension">. {report.extension}.</span>}
        {report.sharding && <span data-testid="replay-sharding"> {report.sharding[0].toUpperCase() + report.sharding.slice(1)}.</span>}
        {report.work_counters && <span data-testid="replay-work-counters"> {report.work_counters}.</span>}
        {report.stages && <span data-testid="replay-stages"> {report.stages}.</span>}
      </p>
    </section>
  )
}
