import type { ReplayReport, VariantSummary } from '../../client'
import { plural } from '../../format'

/** A variant's verdict in one line, what an upgrade lead reads first (the counts of replay/findings.py
 * `summarise`, in fingerprints): "mariadb-11.8 against mariadb-10.11: 1 break, 2 slower (1 with a plan
 * change), 0 faster, 5 same, 1 undecided"; then, when there are any, those changed by the
 * per-statement cost only, plans changed, errors resolved, refused writes and timeouts. The summary
 * table below it on the page splits each count. */
export function verdictLine(s: VariantSummary, baseline: string): string {
  const parts = [
    plural(s.breaks, 'break'),
    `${s.slower} slower${s.slower_plan_changed ? ` (${s.slower_plan_changed} with a plan change)` : ''}`,
    `${s.faster} faster`,
    `${s.same} same`,
    `${s.undecided} undecided`,
  ]
  if (s.slower_cost_only || s.faster_cost_only)
    parts.push(`${s.slower_cost_only} slower / ${s.faster_cost_only} faster by the per-statement cost only`)
  if (s.plan_changes) parts.push(plural(s.plan_changes, 'plan changed', 'plans changed'))
  if (s.resolved_errors) parts.push(plural(s.resolved_errors, 'error resolved', 'errors resolved'))
  if (s.refused) parts.push(plural(s.refused, 'refused write'))
  if (s.timeouts) parts.push(plural(s.timeouts, 'timeout'))
  return `${s.variant} against ${baseline}: ${parts.join(', ')}`
}

/** The report's first lines: one verdict per variant (its whole summary line as the CLI prints it in
 * the tooltip), a break or a slower fingerprint marked. */
export function ReplayVerdicts({ report }: { report: ReplayReport }) {
  if (!report.summary.length) return null
  return (
    <ul className="verdict-lines" data-testid="replay-verdicts">
      {report.summary.map((s) => (
        <li
          key={s.variant}
          data-testid={`replay-verdict-${s.variant}`}
          className={s.breaks || s.slower ? 'verdict verdict-regression' : undefined}
          title={s.text}
        >
          {verdictLine(s, report.baseline)}
        </li>
      ))}
    </ul>
  )
}
