import type { StatementCost as Cost } from '../../client'
import { Ratio } from '../Ratio/Ratio'

const us = (v: number | null | undefined, signed = false) =>
  v == null ? '–' : `${signed && v >= 0 ? '+' : ''}${v.toFixed(0)} us`

/** The per-statement cost the report opens with (measurement/statement_cost.py, report.py StatementCost): per
 * variant, the null statement's (DO 0) time beside the baseline's, the difference in microseconds with its
 * interval and the ratio with its interval and verdict, on the pair's clock. Its sentence is the tooltip.
 * The A/A control's row is the noise floor the others are read against: marked so, its ratio without a verdict.
 * A replay sharded over a pool's hosts has a row per variant and host (`host`), each its host's own measurement,
 * and says so: its fingerprints are read net of their own host's. */
export function StatementCost({ costs, baseline }: { costs: Cost[]; baseline: string }) {
  if (!costs.length) return null
  const hosts = [...new Set(costs.map((c) => c.host).filter((h): h is string => h != null))]
  return (
    <section className="table-box" data-testid="statement-cost">
      {hosts.length > 0 && (
        <p className="muted" data-testid="statement-cost-hosts">
          Sharded over {hosts.length} hosts ({hosts.join(', ')}): a row per variant and host, each on that
          host's own {costs[0].sql}; each fingerprint is read net of its own host's.
        </p>
      )}
      <table className="table">
        <thead>
          <tr>
            <th>per-statement cost ({costs[0].sql}) vs {baseline}</th>
            {hosts.length > 0 && <th>host</th>}
            <th>{baseline}</th>
            <th>variant</th>
            <th>every statement costs</th>
            <th>ratio</th>
            <th>clock</th>
          </tr>
        </thead>
        <tbody>
          {costs.map((c) => (
            <tr
              key={`${c.variant} ${c.host ?? ''}`}
              data-testid={`statement-cost-${c.variant}`}
              data-host={c.host ?? undefined}
              title={c.text}
            >
              <td>
                {c.variant}
                {c.aa_control && <span className="muted"> (A/A control: the noise floor)</span>}
              </td>
              {hosts.length > 0 && <td>{c.host}</td>}
              <td>{us(c.baseline_s == null ? null : c.baseline_s * 1e6)}</td>
              <td>{us(c.median_s == null ? null : c.median_s * 1e6)}</td>
              <td data-testid="statement-cost-difference">
                {us(c.difference_us, true)}{' '}
                {c.difference_low_us != null && c.difference_high_us != null && (
                  <span className="muted">
                    [{us(c.difference_low_us, true)}, {us(c.difference_high_us, true)}]
                  </span>
                )}
              </td>
              <td>
                <Ratio value={c.ratio} withVerdict={!c.aa_control} />
              </td>
              <td>{c.clock}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
