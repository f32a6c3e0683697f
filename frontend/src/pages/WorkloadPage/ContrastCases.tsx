import type { ContrastCaseRead } from '../../client'
import { Ratio } from '../../components/Ratio/Ratio'
import { formatRatio } from '../../format'
import { TableHead } from '../../components/Table/Table'

/** The article's own within-version ratios (monitor on / off, N threads / 1, first count / later), each
 * beside the latest succeeded run's contrast of the same name per variant, or why there is none. */
export function ContrastCases({ cases, runId }: { cases: ContrastCaseRead[]; runId: number | null }) {
  if (cases.length === 0) return null
  return (
    <div data-testid="contrast-cases">
      <h3>The article&apos;s ratios inside one version</h3>
      <p className="small">
        Article: its two figures&apos; ratio. Measured here: the same contrast in the latest succeeded run
        {runId !== null ? ` (#${runId})` : ''}, per variant, paired within each round, with its 95 % interval.
      </p>
      <table className="data-table">
        <TableHead columns={['Contrast', 'Article', 'Measured here']} />
        <tbody>
          {cases.map((c) => (
            <tr key={`${c.contrast}|${c.label}`} data-testid="contrast-case">
              <td>
                {c.contrast}
                <div className="small muted">{c.label}</div>
              </td>
              <td data-testid="article-contrast">
                {formatRatio(c.ratio)}
                <div className="small muted">
                  {c.numerator} {c.unit} / {c.denominator} {c.unit}
                  {c.note ? ` — ${c.note}` : ''}
                </div>
              </td>
              <td data-testid="measured-contrast">
                {c.measured.length === 0 ? (
                  <span className="muted">{c.measured_note ?? 'not in the latest run'}</span>
                ) : (
                  c.measured.map((m) => (
                    <div key={m.variant_index}>
                      <Ratio value={m.verdict} />{' '}
                      <span className="small muted">
                        {m.variant}
                        {m.verdict ? `, ${m.verdict.rounds} rounds, ${m.verdict.verdict}` : ''}
                      </span>
                    </div>
                  ))
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
