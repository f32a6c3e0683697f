import type { RunContrasts } from '../../client'
import { Ratio } from '../Ratio/Ratio'
import { TableHead } from '../Table/Table'

/** A run's contrasts: per variant the template's within-variant ratios, then each variant's over the
 * first variant's (does the upgrade change the effect?), with 95 % intervals and verdicts. */
export function ContrastTable({ contrasts }: { contrasts: RunContrasts }) {
  return (
    <>
      <table className="data-table" data-testid="contrast-table">
        <TableHead columns={['Variant', 'Contrast', 'Ratio [95 % interval]', 'Rounds', 'Verdict']} />
        <tbody>
          {contrasts.within.map((row) => (
            <tr key={`${row.variant_index}|${row.name}`} data-testid="contrast-row">
              <td>{row.variant}</td>
              <td title={row.description}>
                {row.name}
                <div className="small muted">
                  {row.numerator} / {row.denominator} ({row.metric})
                </div>
              </td>
              <td>
                <Ratio value={row.verdict} />
              </td>
              <td>{row.verdict?.rounds ?? '-'}</td>
              <td title={row.verdict?.reason}>{row.verdict?.verdict ?? 'no value'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {contrasts.across.length > 0 && (
        <table className="data-table" data-testid="contrast-change-table">
          <TableHead columns={['Contrast', 'Variant / baseline', 'Ratio of contrasts [95 % interval]', 'Verdict']} />
          <tbody>
            {contrasts.across.map((row) => (
              <tr key={`${row.variant}|${row.name}`} data-testid="contrast-change-row">
                <td>{row.name}</td>
                <td>
                  {row.variant} / {row.baseline}
                </td>
                <td>
                  <Ratio value={row.verdict} />
                </td>
                <td title={row.verdict?.reason}>{row.verdict?.verdict ?? 'no value'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  )
}
