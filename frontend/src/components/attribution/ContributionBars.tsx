import type { AttributionResult } from '../../client'

const pct = (x: number) => `${Math.round(x * 100)} %`

/** How a setting beside the set was decided (report.py `also`). */
function decidedBy(stage: string | undefined, runs: number | undefined): string {
  if (stage === 'confirmation') return `, confirmed in ${runs ?? 0} fresh run${runs === 1 ? '' : 's'}`
  if (stage === 'group') return `, found by splitting a group (${runs ?? 0} runs)`
  return ''
}

/** Each member's share of the gap as a bar with its interval, then the remainder (unexplained). Scale:
 * 0 to 100 % of the log-ratio gap; an interval beyond it is clipped. */
export function ContributionBars({ result }: { result: AttributionResult }) {
  const clip = (x: number) => Math.max(0, Math.min(1, x)) * 100
  const rows = result.members.map((m) => ({ name: m.name, share: m.contribution, low: m.low, high: m.high, known: m.known }))
  return (
    <div className="contribution-bars" data-testid="contribution-bars">
      {rows.map((row) => (
        <div key={row.name} className="contribution-row" data-testid="contribution" data-name={row.name}>
          <span className="contribution-label">
            {row.name}
            {row.known && <span className="muted" title={row.known}> (changed default)</span>}
          </span>
          <span className="contribution-track" style={{ position: 'relative', display: 'inline-block', width: 320, height: 14, background: '#eee' }}>
            {row.share !== null && (
              <span style={{ position: 'absolute', left: 0, top: 0, bottom: 0, width: `${clip(row.share)}%`, background: '#4a7bd0' }} />
            )}
            {row.low !== null && row.high !== null && (
              <span
                style={{ position: 'absolute', top: 6, height: 2, left: `${clip(row.low)}%`, width: `${clip(row.high) - clip(row.low)}%`, background: '#222' }}
              />
            )}
          </span>{' '}
          <span data-testid="contribution-text">
            {row.share === null ? 'not measured' : `${pct(row.share)} of the gap`}
            {row.low !== null && row.high !== null && (
              <span className="muted">
                {' '}
                [{pct(row.low)}, {pct(row.high)}]
              </span>
            )}
          </span>
        </div>
      ))}
      {(result.also ?? []).map((other) => (
        <div key={other.name} className="contribution-row muted" data-testid="also" data-name={other.name}>
          {other.name}: {pct(other.alone.share)} alone [{pct(other.alone.low)}, {pct(other.alone.high)}]
          {decidedBy(other.decided_by, other.runs)}, overlapping with the set above (the set closes the gap without it)
        </div>
      ))}
      {(result.beside ?? [])
        .filter((test) => !test.decided && test.stage !== 'screening' && test.share !== null && test.low !== null && test.high !== null)
        .map((test) => (
          <div key={`${test.stage} ${test.subset.join('+')}`} className="contribution-row muted" data-testid="beside-undecided">
            not decided beside the set: {test.subset.length > 3 ? `${test.subset.length} settings together` : test.subset.join(' + ')}{' '}
            {pct(test.share ?? 0)} [{pct(test.low ?? 0)}, {pct(test.high ?? 0)}] in {test.runs} fresh run{test.runs === 1 ? '' : 's'}
          </div>
        ))}
      {result.interacts && result.interaction !== null && (
        <div className="contribution-row muted" data-testid="interaction">
          interaction: {pct(result.interaction)} (the parts do not add up to the set&apos;s share)
        </div>
      )}
      {result.unexplained !== null && (
        <div className="contribution-row" data-testid="unexplained">
          <span className="contribution-label">unexplained</span>{' '}
          <span className="contribution-track" style={{ position: 'relative', display: 'inline-block', width: 320, height: 14, background: '#eee' }}>
            <span style={{ position: 'absolute', left: 0, top: 0, bottom: 0, width: `${clip(result.unexplained)}%`, background: '#bbb' }} />
          </span>{' '}
          {pct(result.unexplained)}
        </div>
      )}
    </div>
  )
}
