import type { ReactNode } from 'react'
import { isFinal } from '../../api/models'
import type { AttributionRead } from '../../client'
import { useCollapsedRows } from '../CollapsedRows'
import { JobHeader } from '../JobPage/JobHeader'
import { OriginLink } from '../JobPage/OriginLink'
import { Ratio } from '../Ratio/Ratio'
import { ContributionBars } from './ContributionBars'
import { StepsTable } from './StepsTable'

const OUTCOME_TEXT: Record<string, string> = {
  explained: 'These settings explain the gap',
  unexplained: 'No candidate explains the gap',
  'out of budget': 'Out of budget: what was found so far',
  'no candidates': 'No setting differs that could be tested',
}

interface Props {
  attribution: AttributionRead
  /** Link the origin run and each step run to their pages: signed in only (a share link's reader
   * cannot open them, so there the run ids are text). */
  linkRuns: boolean
  /** Beside the status (the signed-in page's Cancel). */
  actions?: ReactNode
  /** After the description: exports, the share link, their errors. */
  tools?: ReactNode
}

/** One attribution as the signed-in page and its share link show it, its answer first: status, the
 * origin gap, progress, the result (contributions with intervals, the unexplained remainder, the
 * option lines); then how it searched (the share that explains, rounds, budget), the steps and the
 * candidates (collapsed past 20 with their count). Actions and links to signed-in pages come from the
 * page that shows it. */
export function AttributionView({ attribution: data, linkRuns, actions, tools }: Props) {
  const { result, steps, progress, gap } = data
  const final = isFinal(data.status)
  const origin = `run ${data.run_id}`
  const { shown: candidates, toggle } = useCollapsedRows(data.candidates, 'attribution-candidates-more')
  return (
    <>
      <JobHeader
        title={`Explain the gap: ${data.variant} against ${data.baseline}`}
        status={data.status}
        statusTestId="attribution-status"
        actions={actions}
      />
      <p className="muted">
        From <OriginLink to={`/runs/${data.run_id}`} linked={linkRuns} testId="attribution-run" text={origin} />
        {gap && (
          <>
            {' '}
            ({data.metric}
            {data.group ? `, ${data.group}` : ''}: <Ratio value={gap} testId="attribution-gap" />, {gap.verdict})
          </>
        )}
        .
      </p>
      {tools}
      {progress && !final && (
        <p data-testid="attribution-progress">
          {progress.runs_done ?? 0} of {data.budget_runs} runs, {progress.minutes ?? 0} min: {progress.message ?? progress.phase}
        </p>
      )}
      {data.error && <p className="notice">{data.error}</p>}
      {result && (
        <section data-testid="attribution-result">
          <h2 data-testid="attribution-outcome" data-outcome={result.outcome}>
            {OUTCOME_TEXT[result.outcome] ?? result.outcome}
          </h2>
          <ContributionBars result={result} />
          {result.lines.length > 0 && (
            <>
              <p>To reproduce the baseline&apos;s behaviour on the variant:</p>
              <pre data-testid="attribution-lines">{result.lines.join('\n')}</pre>
            </>
          )}
          {result.refused.length > 0 && (
            <ul data-testid="attribution-refused">
              {result.refused.map((r) => (
                <li key={r.name}>
                  {r.name}: refused by the server during the search, left out: <code>{r.reason}</code>
                </li>
              ))}
            </ul>
          )}
          <p className="muted">
            {result.runs} runs, {result.minutes} minutes
            {!result.complete && ' (stopped before the search ended)'}.
          </p>
        </section>
      )}
      <h2>How it searched</h2>
      <p className="muted" data-testid="attribution-method">
        A set explains the gap when giving the variant the baseline&apos;s values for it closes at least{' '}
        {Math.round(data.target_share * 100)} % of the log-ratio gap. Each step is an interleaved run of {data.rounds} rounds
        of {data.block} iterations. Budget: {data.budget_runs} runs, {data.budget_minutes} minutes.
      </p>
      <h2>Steps</h2>
      <StepsTable steps={steps} linkRuns={linkRuns} />
      <h2>Candidates ({data.candidates.length})</h2>
      <ul data-testid="attribution-candidates">
        {candidates.map((c) => (
          <li key={c.name}>
            {c.name}: {c.baseline ?? '(none)'} → {c.variant ?? '(none)'}
            {c.known ? <span className="muted"> ({c.known})</span> : null}
          </li>
        ))}
      </ul>
      {toggle}
      {data.untestable.length > 0 && (
        <details>
          <summary>Cannot be tested ({data.untestable.length})</summary>
          <ul data-testid="attribution-untestable">
            {data.untestable.map((u) => (
              <li key={u.name}>
                {u.name}: {u.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  )
}
