import type { CounterRange, FingerprintResult, VariantFinding, VariantSummary } from '../../client'
import { VariantTable } from './VariantTable'

// How the report says each counter (measurement/counters.py COUNTERS); an unknown name is shown as it is.
const LABELS: Record<string, string> = {
  rows_examined: 'rows examined',
  rows_sent: 'rows sent',
  created_tmp_tables: 'temporary tables',
  created_tmp_disk_tables: 'temporary tables on disk',
  select_full_join: 'full joins',
  select_scan: 'full scans',
  sort_rows: 'sort rows',
  sort_merge_passes: 'sort merge passes',
  no_index_used: 'no index used',
  cpu_time_s: 'CPU time',
}

function number(name: string, value: number): string {
  if (name === 'cpu_time_s') return value >= 1e-3 ? `${(value * 1e3).toPrecision(3)} ms` : `${(value * 1e6).toPrecision(3)} us`
  return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toLocaleString('en-US', { maximumFractionDigits: 1 })
}

/** A counter per execution: "16,049", or "16,049-16,100" when it differed between executions. */
export function rangeText(name: string, value: CounterRange): string {
  return value.low === value.high ? number(name, value.mean) : `${number(name, value.low)}-${number(name, value.high)}`
}

/** Why the fingerprint changed on a variant (replay/change_causes.py), and its counters and stages that moved
 * against the baseline's (the ones that differ without moving, CPU time among them, are in the work and stage tables
 * when the row is opened). A known cause is already shown beside the group. */
export function CauseAndWork({ finding, variant }: { finding: VariantFinding; variant: string }) {
  const cause = finding.cause && finding.cause.kind !== 'known cause' ? finding.cause : null
  const moved = finding.work.filter((c) => c.moved)
  const stages = (finding.stages ?? []).filter((c) => c.moved)
  if (!cause && moved.length === 0 && stages.length === 0) return null
  return (
    <div className="muted" data-testid={`variant-cause-${variant}`}>
      {cause && (
        <div data-cause={cause.kind}>
          <span className="badge">{cause.kind}</span> {cause.text}
        </div>
      )}
      {moved.map((c) => (
        <div key={c.counter} data-testid={`work-${variant}-${c.counter}`}>
          <strong>{c.text}</strong>
        </div>
      ))}
      {stages.map((c) => (
        <div key={c.stage} data-testid={`stage-${variant}-${c.stage}`}>
          <strong>{c.text}</strong>
        </div>
      ))}
    </div>
  )
}

/** A fingerprint's work counters per execution on every variant (counters x variants), under its statements. */
export function WorkTable({ report, variants }: { report: FingerprintResult; variants: string[] }) {
  const names = Object.keys(report.work[variants[0]]?.counters ?? {})
  if (names.length === 0) return null
  return (
    <VariantTable
      testId={`work-${report.fingerprint_id}`}
      title="work per execution"
      heads={variants.map((v) => `${v} (${report.work[v]?.executions ?? 0} runs)`)}
      rows={names.map((name) => ({
        label: LABELS[name] ?? name,
        cells: variants.map((v) => {
          const value = report.work[v]?.counters[name]
          return value ? rangeText(name, value) : '–'
        }),
      }))}
    />
  )
}

function counts(byCause: Record<string, number>): string {
  return Object.entries(byCause)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ')
}

/** A variant's slower and faster fingerprints by cause: "slower 3 (work 2, time only 1)". */
export function CauseCounts({ summary }: { summary: VariantSummary }) {
  const slower = Object.values(summary.slower_causes).reduce((a, b) => a + b, 0)
  const faster = Object.values(summary.faster_causes).reduce((a, b) => a + b, 0)
  if (!slower && !faster) return <>–</>
  return (
    <span data-testid={`causes-${summary.variant}`}>
      {slower > 0 && `slower ${slower} (${counts(summary.slower_causes)})`}
      {slower > 0 && faster > 0 && ', '}
      {faster > 0 && `faster ${faster} (${counts(summary.faster_causes)})`}
    </span>
  )
}
