import type { ReactNode } from 'react'
import { isFinal } from '../../api/models'
import type { ConcurrentReplayRead, ConcurrentReport, ConcurrentVerdict } from '../../client'
import { JobHeader } from '../../components/JobPage/JobHeader'
import { Ratio } from '../../components/Ratio/Ratio'

interface Props {
  job: ConcurrentReplayRead
  /** Beside the status (the signed-in page's Cancel). */
  actions?: ReactNode
  /** After the description (exports, the share link). */
  tools?: ReactNode
}

/** The answer in one sentence per variant: its breaks, slower and faster against the baseline. */
function answer(report: ConcurrentReport): string[] {
  return report.groups.map(
    (g) =>
      `${g.variant}: ${g.breaks} break${g.breaks === 1 ? '' : 's'}, ${g.slower} slower, ${g.faster} faster, ` +
      `${g.same} same, ${g.undecided} undecided against ${report.baseline} over ${g.trials} trials`,
  )
}

/** Seconds as milliseconds for a p95 cell ('-' when there is none). */
function ms(seconds: number | null | undefined): string {
  return seconds == null ? '-' : (seconds * 1000).toFixed(2)
}

/** A p95 row's medians: the client's (its verdict's clock) and the server's beside it, baseline → variant. */
function p95Cells(v: ConcurrentVerdict) {
  if (v.metric !== 'p95') {
    return (
      <>
        <td />
        <td />
      </>
    )
  }
  return (
    <>
      <td>
        {ms(v.baseline_median)} → {ms(v.variant_median)}
      </td>
      <td data-testid="concurrent-server-p95">
        {ms(v.baseline_server_p95_s)} → {ms(v.variant_server_p95_s)}
      </td>
    </>
  )
}

/** One concurrent replay: its answer first (per variant), its breaks (error codes with their count
 * per trial and first statement, tables ending with other data), its throughput and p95 verdicts
 * with their causes (a p95's client medians beside the server's: the verdict on the one clock the
 * report states, each variant's server clock said), then every trial (copy, wall clock, rates, errors). */
export function ConcurrentReplayView({ job, actions, tools }: Props) {
  const report = job.report
  const progress = job.progress
  const breaks = report ? [...report.errors.filter((e) => e.group === 'breaks')] : []
  const tables = report ? report.tables.filter((t) => t.group === 'breaks') : []
  const verdicts = report ? [...report.throughput, ...report.fingerprints].filter((v) => v.group !== 'same') : []
  return (
    <div className="concurrent-replay">
      <JobHeader title={`Concurrent replay #${job.id} ${job.name}`} status={job.status} statusTestId="concurrent-status" actions={actions} />
      {report && (
        <ul data-testid="concurrent-answer">
          {answer(report).map((line) => (
            <li key={line}>{line}</li>
          ))}
          {report.partial && <li>Partial: the replay was cancelled; these are the trials that ended.</li>}
        </ul>
      )}
      <p className="muted">
        {job.sessions} sessions, {job.statements} statements, {job.transactions} transactions over {job.duration_s.toFixed(1)} s of
        log ({job.source_format}), replayed together at speed {job.speed} ({job.speed === 0 ? 'as fast as possible' : 'gaps kept'}),{' '}
        {job.rounds} trials per variant, each from a copy of the same loaded data; statements bounded at {job.statement_timeout_s} s.
        {job.cut.length > 0 && ` ${job.cut.length} session parts the log cut were dropped.`}
      </p>
      {tools}
      {progress && !isFinal(job.status) && (
        <p data-testid="concurrent-progress">
          {progress.step}
          {progress.variant && ` ${progress.variant}`}
          {progress.round != null && `, round ${progress.round} of ${progress.rounds}`}, {progress.trials_done} of{' '}
          {progress.trials_planned} trials done
        </p>
      )}
      {job.error && (
        <p className="error-box" data-testid="concurrent-error">
          {job.error}
        </p>
      )}
      {(breaks.length > 0 || tables.length > 0) && (
        <section data-testid="concurrent-breaks">
          <h2>Breaks</h2>
          <ul>
            {breaks.map((e) => (
              <li key={`${e.variant}-${e.code}`} data-testid="concurrent-break" data-code={e.code}>
                {e.variant}: {e.reason}; per trial {e.per_trial.join(', ')}. First in session {e.sample.session} (thread{' '}
                {e.sample.thread_id}): <code>{e.sample.sql}</code>: {e.sample.message}
              </li>
            ))}
            {tables.map((t) => (
              <li key={`${t.variant}-${t.table}`} data-testid="concurrent-table-break">
                {t.variant}: {t.reason}
              </li>
            ))}
          </ul>
        </section>
      )}
      {verdicts.length > 0 && (
        <section>
          <h2>Throughput and latency</h2>
          <table className="table" data-testid="concurrent-verdicts">
            <thead>
              <tr>
                <th>Variant</th>
                <th>Metric</th>
                <th>Group</th>
                <th>Ratio</th>
                <th>Client p95 (ms)</th>
                <th>Server p95 (ms)</th>
                <th>Causes</th>
              </tr>
            </thead>
            <tbody>
              {verdicts.map((v) => (
                <tr key={`${v.variant}-${v.metric}-${v.class_id ?? ''}`} data-group={v.group}>
                  <td>{v.variant}</td>
                  <td>{v.metric === 'p95' ? <code>{v.fingerprint}</code> : v.metric}</td>
                  <td title={v.reason}>{v.group}</td>
                  <td>
                    <Ratio value={v.verdict} />
                  </td>
                  {p95Cells(v)}
                  <td>{v.causes.join('; ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {report && (
        <div className="muted" data-testid="concurrent-clocks">
          <p>Clock: {report.clock}.</p>
          {Object.keys(report.server_clocks).length > 0 && (
            <ul>
              {Object.entries(report.server_clocks).map(([variant, said]) => (
                <li key={variant}>
                  {variant}: {said}
                </li>
              ))}
            </ul>
          )}
          <p>{report.fdr}</p>
        </div>
      )}
      <h2>Trials</h2>
      <table className="table" data-testid="concurrent-trials">
        <thead>
          <tr>
            <th>Round</th>
            <th>Variant</th>
            <th>Copy (s)</th>
            <th>Trial (s)</th>
            <th>Statements/s</th>
            <th>Transactions/s</th>
            <th>Errors</th>
          </tr>
        </thead>
        <tbody>
          {job.trials.map((t) => (
            <tr key={`${t.round}-${t.variant}`}>
              <td>{t.round}</td>
              <td>{t.variant}</td>
              <td>{t.copy_s?.toFixed(2) ?? '-'}</td>
              <td>{t.summary.wall_s.toFixed(2)}</td>
              <td>{t.summary.statements_per_s.toFixed(0)}</td>
              <td>{t.summary.transactions_per_s.toFixed(1)}</td>
              <td>{t.summary.errors.map((e) => `${e.code} x${e.count}`).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
