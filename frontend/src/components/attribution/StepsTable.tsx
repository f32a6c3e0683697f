import { Link } from 'react-router-dom'
import type { StepRead } from '../../client'
import { Ratio } from '../Ratio/Ratio'

const pct = (x: number) => `${Math.round(x * 100)} %`

/** Every step run, with the gap it measured (the variant as it is against the baseline, in that run:
 * steps that disagree on it say how far this host's noise moves the gap), and the share of the gap each tested subset closed, whether it closes it and the
 * test's verdict against the variant as it is (a subset the server refused: its error). `linkRuns`: each
 * step's run links to its page (signed in); a share link's reader cannot open runs, so there it is text. */
export function StepsTable({ steps, linkRuns = true }: { steps: StepRead[]; linkRuns?: boolean }) {
  if (steps.length === 0) return <p className="muted">No step has run yet.</p>
  return (
    <table className="data-table" data-testid="attribution-steps">
      <thead>
        <tr>
          <th>Step</th>
          <th>Run</th>
          <th className="num">Gap in this run [95 %]</th>
          <th>Baseline&apos;s values for</th>
          <th className="num">Share of the gap closed [95 %]</th>
          <th>Closes it</th>
          <th>Verdict against the variant</th>
        </tr>
      </thead>
      <tbody>
        {steps.flatMap((step) =>
          step.subsets.map((subset, index) => {
            // a refused subset has no share, only its error
            const test = step.tests?.[index]
            return (
              <tr key={`${step.step}-${index}`} data-testid="attribution-step" data-run-id={step.run_id}>
                <td>
                  {index === 0 ? step.step : ''}
                  {index === 0 && step.phase === 'beside' && (
                    <span className="muted" title="a test beside the found set (confirmation or group), not ddmin's" data-testid="step-beside">
                      {' '}
                      (beside the set)
                    </span>
                  )}
                </td>
                <td>
                  {index === 0 &&
                    (linkRuns ? (
                      <Link to={`/runs/${step.run_id}`} data-testid="step-run">
                        run {step.run_id}
                      </Link>
                    ) : (
                      <span data-testid="step-run">run {step.run_id}</span>
                    ))}
                </td>
                <td className="num" data-testid="step-gap">
                  {index === 0 && step.gap && <Ratio value={step.gap} />}
                </td>
                <td>{subset.join(', ')}</td>
                <td className="num" data-testid="step-share">
                  {test?.error ? (
                    <span className="muted">refused: {test.error}</span>
                  ) : test && test.share !== null ? (
                    <>
                      {pct(test.share)} <span className="muted">[{pct(test.low ?? 0)}, {pct(test.high ?? 0)}]</span>
                    </>
                  ) : (
                    <span className="muted">running</span>
                  )}
                </td>
                <td data-testid="step-closes">{test ? (test.closes ? 'yes' : 'no') : ''}</td>
                <td data-testid="step-verdict">
                  {test?.verdict && <Ratio value={test.verdict} withVerdict />}
                </td>
              </tr>
            )
          }),
        )}
      </tbody>
    </table>
  )
}
