import type { ArticleCaseRead, ExperimentRead, SummaryRow } from '../../client'
import { formatRatio } from '../../format'
import { caseRatios } from './ratios'
import { TableHead } from '../../components/Table/Table'

// Bars share one scale: the largest ratio shown fills the cell.
function Bar({ ratio, max, kind }: { ratio: number | null; max: number; kind: 'article' | 'measured' }) {
  if (ratio === null) return null
  return <span className={`ratio-bar ratio-bar-${kind}`} style={{ width: `${(100 * ratio) / max}%` }} />
}

interface Props {
  cases: ArticleCaseRead[]
  baselinePoint: string
  experiment: ExperimentRead
  summary: SummaryRow[]
}

/** Per case: the article's ratio to its baseline beside the latest run's, as bars and a table. */
export function ArticleRatios({ cases, baselinePoint, experiment, summary }: Props) {
  const { baseline, rows } = caseRatios(cases, experiment, summary)
  const max = Math.max(1, ...rows.flatMap((r) => [r.case.ratio, r.measured ?? 0]))
  return (
    <div data-testid="article-ratios">
      <p className="small">
        Ratio to the baseline: the article's total {cases[0]?.unit} of a case / of {baselinePoint}; here the median
        iteration time of the case's variant / of {baseline ?? 'a default variant (none in this run)'}. Below 1:
        faster.
      </p>
      <table className="data-table">
        <TableHead
          columns={[
            'Case', 'Article', 'Measured here',
            { label: 'ratio (article above, here below)', className: 'ratio-chart-head' },
          ]}
        />
        <tbody>
          {rows.map((r) => (
            <tr key={r.case.point} data-testid={`article-case-${r.case.point}`}>
              <td>
                {r.case.point}
                <div className="small muted">
                  {r.case.other_target ? 'another target, default preset' : `preset ${r.case.preset}`}
                </div>
              </td>
              <td>
                {formatRatio(r.case.ratio)}
                <div className="small muted">
                  {r.case.value} {r.case.unit} / {r.case.baseline_value} {r.case.unit}
                </div>
              </td>
              <td data-testid="measured-ratio">
                {r.variant === null ? (
                  <span className="muted">not in the latest run</span>
                ) : (
                  <>
                    {formatRatio(r.measured)}
                    <div className="small muted">{r.variant}</div>
                  </>
                )}
              </td>
              <td className="ratio-chart">
                <Bar ratio={r.case.ratio} max={max} kind="article" />
                <Bar ratio={r.measured} max={max} kind="measured" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
