import type { FingerprintFinding, FingerprintResult, VariantFinding } from '../../client'

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
  return (
    <table className="table work" data-testid={`stages-${report.fingerprint_id}`}>
      <thead>
        <tr>
          <th>time by stage per execution</th>
          {shown.map((v) => (
            <th key={v}>
              {v} ({report.stages[v].executions} runs{report.stages[v].incomplete > 0 && `, ${report.stages[v].incomplete} incomplete`})
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {names.map((name) => (
          <tr key={name}>
            <td>{name}</td>
            {shown.map((v) => {
              const value = stageTime(report.stages[v].stages[name])
              return <td key={v}>{moved(v, name) ? <strong data-testid={`stage-moved-${v}-${name}`}>{value}</strong> : value}</td>
            })}
          </tr>
        ))}
        <tr>
          <td>total</td>
          {shown.map((v) => (
            <td key={v}>{stageTime(report.stages[v].total_s)}</td>
          ))}
        </tr>
        {cpu && (
          <tr>
            <td>CPU time</td>
            {shown.map((v) => (
              <td key={v}>{moved(v, 'CPU time') ? <strong>{stageTime(report.stages[v].cpu_s)}</strong> : stageTime(report.stages[v].cpu_s)}</td>
            ))}
          </tr>
        )}
      </tbody>
    </table>
  )
}
