import { Link } from 'react-router-dom'
import type { Step } from '../../api/attributions'

const pct = (x: number) => `${Math.round(x * 100)} %`

/** Every step run, linked, with the share of the gap each tested subset closed and whether it closes it. */
export function StepsTable({ steps }: { steps: Step[] }) {
  if (steps.length === 0) return <p className="muted">No step has run yet.</p>
  return (
    <table className="data-table" data-testid="attribution-steps">
      <thead>
        <tr>
          <th>Step</th>
          <th>Run</th>
          <th>Baseline&apos;s values for</th>
          <th className="num">Share of the gap closed [95 %]</th>
          <th>Closes it</th>
        </tr>
      </thead>
      <tbody>
        {steps.flatMap((step) =>
          step.subsets.map((subset, index) => {
            const test = step.tests?.[index]
            return (
              <tr key={`${step.step}-${index}`} data-testid="attribution-step">
                <td>{index === 0 ? step.step : ''}</td>
                <td>{index === 0 && <Link to={`/runs/${step.run_id}`}>run {step.run_id}</Link>}</td>
                <td>{subset.join(', ')}</td>
                <td className="num">
                  {test ? (
                    <>
                      {pct(test.share)} <span className="muted">[{pct(test.low)}, {pct(test.high)}]</span>
                    </>
                  ) : (
                    <span className="muted">running</span>
                  )}
                </td>
                <td>{test ? (test.closes ? 'yes' : 'no') : ''}</td>
              </tr>
            )
          }),
        )}
      </tbody>
    </table>
  )
}
