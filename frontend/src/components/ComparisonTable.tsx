import type { Comparison, ComparisonRow, VerdictRead } from '../client'
import { variantColor } from '../charts/palette'
import { formatMs } from '../format'
import { ExplainGapButton } from './ExplainGapButton'
import { Ratio } from './Ratio/Ratio'

const VERDICT_CLASS: Record<string, string> = {
  regression: 'verdict-regression',
  improvement: 'verdict-improvement',
}

function VerdictCell({ r }: { r: VerdictRead | null }) {
  if (!r || !r.verdict) return <span className="muted">-</span>
  return (
    <span className={`verdict ${VERDICT_CLASS[r.verdict] ?? 'verdict-none'}`} data-testid="verdict" title={r.reason}>
      {r.verdict}
    </span>
  )
}

/** A metric value in its unit: seconds as ms (like the iteration chart), others as they are. */
function formatValue(row: ComparisonRow, value: number | null): string {
  if (value === null) return '-'
  if (row.metric === 'seconds') return `${formatMs(value)} ms`
  return `${value.toPrecision(4)} ${row.unit}`
}

/**
 * Per variant, group and primary metric: median, p95, the ratio to the baseline with its 95% interval
 * from the rounds, the verdict, the run's A/A noise floor and the smallest detectable change.
 */
export function ComparisonTable({ comparison }: { comparison: Comparison }) {
  const pct = Math.round(comparison.confidence * 100)
  const grouped = comparison.rows.some((r) => r.group !== '')
  const keys = [...new Set(comparison.rows.map((r) => r.key))]
  return (
    <>
      <table className="data-table" data-testid="comparison-table">
        <thead>
          <tr>
            <th>Variant</th>
            {grouped && <th>Group</th>}
            <th>Metric</th>
            <th className="num">Iterations</th>
            <th className="num">Rounds</th>
            <th className="num">Median</th>
            <th className="num">p95</th>
            <th className="num">Ratio [{pct}% CI]</th>
            <th>Verdict</th>
            <th className="num">A/A floor</th>
            <th className="num">Smallest detectable change</th>
          </tr>
        </thead>
        <tbody>
          {comparison.rows.map((row) => (
            <tr
              key={`${row.key}|${row.group}|${row.metric}`}
              data-testid="comparison-row"
              data-key={row.key}
              data-group={row.group}
              data-metric={row.metric}
            >
              <td>
                <span className="swatch" style={{ background: variantColor(keys.indexOf(row.key)) }} />
                {row.label} {row.is_baseline && <span className="muted">(baseline)</span>}
                {row.is_aa_control && <span className="muted"> (A/A control)</span>}
              </td>
              {grouped && <td>{row.group}</td>}
              <td>
                {row.metric} <span className="muted">{row.higher_is_better ? '(higher is better)' : '(lower is better)'}</span>
              </td>
              <td className="num">{row.iterations}</td>
              <td className="num">{row.rounds}</td>
              <td className="num">{formatValue(row, row.median)}</td>
              <td className="num">{formatValue(row, row.p95)}</td>
              <td className="num">
                {row.is_baseline ? <span className="muted">1.00x</span> : <Ratio value={row.ratio} testId="ratio" />}
              </td>
              <td>
                {row.is_baseline ? <span className="muted">baseline</span> : <VerdictCell r={row.ratio} />}
                {!row.is_baseline && !row.is_aa_control && (row.ratio?.verdict === 'regression' || row.ratio?.verdict === 'improvement') && (
                  <> <ExplainGapButton runId={row.run_id} variant={row.variant} /></>
                )}
              </td>
              <td className="num">
                <Ratio value={row.aa_floor} testId="aa-floor" />
              </td>
              <td className="num" data-testid="mde">
                {row.ratio ? `±${(row.ratio.mde * 100).toFixed(1)}%` : '-'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint" data-testid="comparison-note">
        Ratios are variant / baseline of each group&apos;s primary metric, paired round by round: the per-round ratios
        of block medians, summarised by a 20 % trimmed mean of their logarithms with a Tukey-McLaughlin {pct}%
        interval over the rounds (robust to a few disturbed rounds; stricter when rounds were added). A verdict needs
        at least {comparison.min_rounds} rounds; inside the A/A floor it stays inconclusive. Smallest detectable
        change: the interval&apos;s half-width. One-round runs show a within-block bootstrap ({comparison.resamples}{' '}
        resamples, seed {comparison.seed}), not a verdict.{' '}
        {comparison.stored ? 'Stored when the run ended.' : 'Computed for these settings.'}
      </p>
    </>
  )
}
