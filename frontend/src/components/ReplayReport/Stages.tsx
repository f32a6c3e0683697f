import type { FingerprintFinding, FingerprintResult, VariantFinding } from '../../client'
import { VariantTable } from './VariantTable'

/** Seconds as the report says a stage's time: "12.3 us", "1.22 ms" (3 significant digits). */
export function stageTime(seconds: number | null | undefined): string {
  if (seconds == null) return '–'
  return seconds >= 1e-3 ? `${(seconds * 1e3).toPrecision(3)} ms` : `${(seconds * 1e6).toPrecision(3)} us`
}

/** The findings of a fingerprint on a variant that its group does not name (replay/findings.py: a regression inside
 * a break, a plan change beside a faster time), each with its own cause: "also slower: plan changed: ...". A group
 * names its findings in its own words ("slower, plan changed" names both). */
export function AlsoFindings({ finding, variant }: { finding: VariantFinding; variant: string }) {
  const named = finding.group.split(', ')
  const also: FingerprintFinding[] = finding.findings.filter((f) => !named.includes(f.kind))
  if (also.length === 0) return null
  return (
    <div className="muted" data-testid={`variant-also-${variant}`}>
      {also.map((f) => (
        <div key={f.kind} data-finding={f.kind}>
          also <strong>{f.kind}</strong>
          {f.cause && <>: {f.cause.text}</>}
        </div>
      ))}
    </div>
  )
}

/** A fingerprint's time by stage per execution on every variant (replay/stages.py; stages x variants, the
 * baseline's largest first), its total and CPU time where the server has it; the stages that moved on a variant
 * (its finding's) in bold. */
export function StageTable({ report, variants }: { report: FingerprintResult; variants: string[] }) {
  const shown = variants.filter((v) => report.stages[v])
  if (shown.length === 0) return null
  const names: string[] = []
  for (const v of shown) for (const name of Object.keys(report.stages[v].stages)) if (!names.includes(name)) names.push(name)
  const moved = (v: string, name: string) => (report.variants[v]?.stages ?? []).some((c) => c.moved && c.stage === name)
  const cpu = shown.some((v) => report.stages[v].cpu_s != null)
  const bold = (v: string, name: string, text: string) =>
    moved(v, name) ? <strong data-testid={`stage-moved-${v}-${name}`}>{text}</strong> : text
  const rows = names.map((name) => ({
    label: name,
    cells: shown.map((v) => bold(v, name, stageTime(report.stages[v].stages[name]))),
  }))
  rows.push({ label: 'total', cells: shown.map((v) => stageTime(report.stages[v].total_s)) })
  if (cpu) rows.push({ label: 'CPU time', cells: shown.map((v) => bold(v, 'CPU time', stageTime(report.stages[v].cpu_s))) })
  return (
    <VariantTable
      testId={`stages-${report.fingerprint_id}`}
      title="time by stage per execution"
      heads={shown.map((v) => {
        const { executions, incomplete } = report.stages[v]
        return `${v} (${executions} runs${incomplete > 0 ? `, ${incomplete} incomplete` : ''})`
      })}
      rows={rows}
    />
  )
}
