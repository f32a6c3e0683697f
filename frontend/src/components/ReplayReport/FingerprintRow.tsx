import type { ReactNode } from 'react'
import type { FingerprintResult, Outcome } from '../../client'
import { HASH_TARGET } from '../HashTarget'
import { Ratio } from '../Ratio/Ratio'
import { AlsoFindings, StageTable } from './Stages'
import { CauseAndWork, WorkTable } from './WorkCounters'

interface Props {
  report: FingerprintResult
  variants: string[]
  open: boolean
  onToggle: () => void
  /** Under the fingerprint (the signed-in replay page's fix searches and "Find a fix"). */
  extra?: ReactNode
  /** The row the page's address names (`#fp-<fingerprint_id>`, an assessment's evidence link): marked. */
  marked?: boolean
}

function ms(seconds: number | null | undefined): string {
  return seconds == null ? '–' : `${(seconds * 1000).toFixed(2)} ms`
}

function PlanTable({ outcome }: { outcome: Outcome }) {
  if (outcome.plan_error) return <span className="muted">no plan: {outcome.plan_error}</span>
  return (
    <table className="table plan">
      <tbody>
        {outcome.plan.map((step, i) => (
          <tr key={i}>
            <td>{step.table}</td>
            <td>{step.access_type}</td>
            <td>{step.key ?? <span className="muted">no index</span>}</td>
            <td>{step.rows ?? ''} rows</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function OutcomeCell({ outcome, timedOutRuns }: { outcome: Outcome; timedOutRuns: number }) {
  // a refusal or a timeout is not an error of the variant: said as the report says it, the server's
  // own message beside it
  if (outcome.kind === 'refused' || outcome.kind === 'timed out')
    return (
      <div className={`outcome-${outcome.kind.replace(' ', '-')}`} data-testid="outcome-note">
        <span className={`badge badge-${outcome.kind.replace(' ', '-')}`}>{outcome.note}</span>
        {outcome.error_code !== null && (
          <div className="muted">
            ERROR {outcome.error_code}: {outcome.error_message}
          </div>
        )}
      </div>
    )
  if (outcome.error_code !== null)
    return (
      <div className="error-box">
        ERROR {outcome.error_code}: {outcome.error_message}
      </div>
    )
  return (
    <div>
      {outcome.row_count} rows, checksum {outcome.checksum_unordered?.slice(0, 10)}
      {outcome.note && (
        <div className="muted" data-testid="outcome-result-note">
          {outcome.note}
        </div>
      )}
      {outcome.warnings.length > 0 && (
        <div className="muted">warnings: {outcome.warnings.map((w) => `${w[1]} ${w[2]}`).join('; ')}</div>
      )}
      {timedOutRuns > 0 && (
        <div className="badge badge-timed-out" data-testid="outcome-note">
          timed out in {timedOutRuns} timed runs
        </div>
      )}
      <PlanTable outcome={outcome} />
    </div>
  )
}

/** A fingerprint's medians and ratios; opened, each statement's outcome on every variant side by side. */
export function FingerprintRow({ report, variants, open, onToggle, extra, marked = false }: Props) {
  return (
    <>
      <tr
        id={`fp-${report.fingerprint_id}`}
        className={marked ? HASH_TARGET : undefined}
        data-testid={`fingerprint-${report.fingerprint_id}`}
        data-group={report.group}
      >
        <td>
          <span className={`badge badge-${report.group.replace(/[^a-z]+/g, '-')}`}>{report.group}</span>
        </td>
        <td>
          <button type="button" className="btn btn-secondary btn-small" onClick={onToggle} aria-expanded={open}>
            {open ? '▾' : '▸'}
          </button>{' '}
          <code>{report.fingerprint}</code>
          {report.class_id && (
            <div className="muted" data-testid="class-id" title="pt-query-digest's class ID: the last 16 hex digits of the fingerprint's MD5">
              pt class 0x{report.class_id}
            </div>
          )}
          {report.host && (
            <div className="muted" data-testid="fingerprint-host" title="a sharded replay: the host that timed it, every variant">
              {report.rounds ?? '?'} rounds on {report.host}
            </div>
          )}
          {report.floor && (
            <div className="muted" data-testid="aa-floor">
              A/A floor <Ratio value={report.floor} />
            </div>
          )}
          {extra}
        </td>
        {variants.map((v) => (
          <td key={v}>
            {ms(report.median_s[v])}
            {report.variants[v] && (
              <div data-testid={`variant-group-${v}`}>
                {report.variants[v].group}
                {report.variants[v].causes.map((c) => (
                  <span key={c.id} className="muted" title={c.check ? `MySQL Shell upgrade checker: ${c.check}` : undefined}>
                    {' '}
                    ({c.title})
                  </span>
                ))}
              </div>
            )}
            {report.variants[v] && <CauseAndWork finding={report.variants[v]} variant={v} />}
            {report.variants[v] && <AlsoFindings finding={report.variants[v]} variant={v} />}
            {report.ratios[v] && (
              <div className="muted" data-testid={`variant-ratio-${v}`}>
                <Ratio value={report.ratios[v]} withVerdict withRounds />
              </div>
            )}
            {report.variants[v]?.net && (
              <div className="muted" data-testid={`variant-net-${v}`} title="net of the per-statement cost (DO 0)">
                net <Ratio value={report.variants[v].net} withVerdict />
              </div>
            )}
          </td>
        ))}
      </tr>
      {open &&
        report.statements.map((statement, i) => (
          <tr key={i} className="statement-detail">
            <td>
              {statement.diffs
                .flatMap((d) => [
                  d.error && `${d.variant}: error differs`,
                  d.timed_out && `${d.variant}: timed out on one side only`,
                  d.refused && `${d.variant}: refused as a write on one side only`,
                  d.result && `${d.variant}: rows differ`,
                  d.ordering_only && `${d.variant}: ordering only${d.unordered_query ? ' (no ORDER BY)' : ''}`,
                  d.plan && `${d.variant}: plan changed`,
                  d.warnings && `${d.variant}: warnings differ`,
                ])
                .filter(Boolean)
                .map((text) => (
                  <div key={String(text)}>{text}</div>
                ))}
            </td>
            <td>
              <code>{statement.sql}</code>
              {statement.database && <div className="muted">database {statement.database}</div>}
            </td>
            {variants.map((v) => (
              <td key={v}>
                <OutcomeCell outcome={statement.outcomes[v]} timedOutRuns={statement.timed_out_runs[v] ?? 0} />
              </td>
            ))}
          </tr>
        ))}
      {open && (Object.keys(report.work).length > 0 || Object.keys(report.stages).length > 0) && (
        <tr className="work-detail">
          <td />
          <td colSpan={variants.length + 1}>
            <WorkTable report={report} variants={variants} />
            <StageTable report={report} variants={variants} />
          </td>
        </tr>
      )}
    </>
  )
}
