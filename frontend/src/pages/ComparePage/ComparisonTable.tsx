import type { Comparison, RatioRead } from '../../api/types'
import { variantColor } from '../../charts/palette'
import { formatMs } from '../../format'

function Ratio({ r, testId }: { r: RatioRead | null; testId: string }) {
  if (!r) return <span className="muted">-</span>
  return (
    <span data-testid={testId}>
      {r.ratio.toFixed(3)}x <span className="muted">[{r.low.toFixed(3)}, {r.high.toFixed(3)}]</span>
    </span>
  )
}

function VerdictCell({ r, testId }: { r: RatioRead | null; testId: string }) {
  if (!r || !r.verdict) return <span className="muted">-</span>
  const cls =
    r.verdict === 'regression' ? 'verdict-regression' : r.verdict === 'improvement' ? 'verdict-improvement' : 'verdict-none'
  return (
    <span className={`verdict ${cls}`} data-testid={testId}>
      {r.verdict}
    </span>
  )
}

/** Median, p95 (ms per iteration), ratio to the baseline with its bootstrap 95% interval, and verdicts. */
export function ComparisonTable({ comparison }: { comparison: Comparison }) {
  const pct = Math.round(comparison.confidence * 100)
  return (
    <>
      <table className="data-table" data-testid="comparison-table">
        <thead>
          <tr>
            <th>Variant</th>
            <th className="num">Iterations</th>
            <th className="num">Median (ms)</th>
            <th className="num">p95 (ms)</th>
            <th className="num">Median ratio [{pct}% CI]</th>
            <th>Median verdict</th>
            <th className="num">p95 ratio [{pct}% CI]</th>
            <th>p95 verdict</th>
          </tr>
        </thead>
        <tbody>
          {comparison.rows.map((row, position) => (
            <tr key={row.key} data-testid="comparison-row" data-key={row.key}>
              <td>
                <span className="swatch" style={{ background: variantColor(position) }} />
                {row.label} {row.is_baseline && <span className="muted">(baseline)</span>}
              </td>
              <td className="num">{row.iterations}</td>
              <td className="num">{formatMs(row.median_s)}</td>
              <td className="num">{formatMs(row.p95_s)}</td>
              <td className="num">
                <Ratio r={row.median} testId="median-ratio" />
              </td>
              <td>{row.is_baseline ? <span className="muted">baseline</span> : <VerdictCell r={row.median} testId="median-verdict" />}</td>
              <td className="num">
                <Ratio r={row.p95} testId="p95-ratio" />
              </td>
              <td>{row.is_baseline ? <span className="muted">baseline</span> : <VerdictCell r={row.p95} testId="p95-verdict" />}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint" data-testid="comparison-note">
        Ratios are variant / baseline of per-iteration time; higher is slower. Interval: percentile bootstrap,{' '}
        {comparison.resamples} resamples, seed {comparison.seed}.{' '}
        {comparison.stored ? 'Stored when the run ended.' : 'Computed for these settings.'}
      </p>
    </>
  )
}
