import type { FixPlanStep, FixSideEffects } from '../../client'
import { Ratio } from '../../components/Ratio/Ratio'
import { Fields } from './FieldValue'
import { applyOf, otherFields, scopeOf, type CandidateRow } from './rows'
import { TableHead } from '../../components/Table/Table'

function PlanSteps({ plan }: { plan: FixPlanStep[] }) {
  return (
    <table className="table plan">
      <tbody>
        {plan.map((step, i) => (
          <tr key={i}>
            <td>{step.table}</td>
            <td>{step.access_type}</td>
            <td>{step.key ?? <span className="muted">no index</span>}</td>
            <td>{step.rows ?? ''} rows</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** A global remedy's check on the whole replay: the sentence, then each fingerprint it slows or whose
 * results it changes (its ratio with / without, results, an error), and what the budget left. */
function SideEffects({ effects }: { effects: FixSideEffects }) {
  return (
    <div data-testid="fix-side-effects" data-complete={effects.complete}>
      <p>
        Side effects on the whole replay: {effects.said} ({effects.checked.length} fingerprints checked,{' '}
        {effects.rounds_per_fingerprint} rounds each{effects.complete ? '' : '; the check did not complete'}).
      </p>
      {effects.side_effects.length > 0 && (
        <table className="table" data-testid="fix-side-effect-list">
          <TableHead columns={['Fingerprint', { label: 'Ratio', title: 'with the remedy / without' }, 'Results']} />
          <tbody>
            {effects.side_effects.map((e) => (
              <tr key={e.fingerprint_id} data-testid="fix-side-effect">
                <td>
                  <code>{e.fingerprint}</code>
                  {e.error && <div className="error-box">{e.error}</div>}
                </td>
                <td>
                  <Ratio value={e.ratio} withVerdict withRounds />
                </td>
                <td>{e.results_equal ? 'equal' : 'changed'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {effects.not_checked.length > 0 && <p className="muted">Not checked: {effects.not_checked.join(', ')}.</p>}
    </div>
  )
}

/** A remedy that restores: its scope, ratios to the baseline and to the variant, results, what to
 * apply (the hint or SET STATEMENT prefix; a global one's option line and SET GLOBAL), the statements
 * as rewritten, the variant's plan before and after, and a global one's side effects. */
export function RemedyCard({ remedy, title, testId }: { remedy: CandidateRow; title: string; testId: string }) {
  const { trial } = remedy
  const scope = scopeOf(remedy)
  const apply = applyOf(remedy)
  const more = otherFields(remedy)
  return (
    <section className="card" data-testid={testId} data-scope={scope}>
      <h3>
        {title}: {remedy.name}{' '}
        <span className="muted">({scope === 'statement' ? 'this statement only' : `${scope}: the whole server`})</span>
      </h3>
      {trial && (
        <p>
          Against the baseline <Ratio value={trial.ratio_to_baseline} withVerdict withRounds />; against the variant as it
          is <Ratio value={trial.ratio_to_variant} withVerdict />; results {trial.results_equal ? 'equal' : 'differ'}.
        </p>
      )}
      {apply && (
        <p>
          Apply: <code data-testid="fix-apply">{apply}</code>
          {trial?.set_global && (
            <>
              {' '}
              or, at once: <code data-testid="fix-set-global">{trial.set_global}</code>
            </>
          )}
        </p>
      )}
      {scope === 'statement' && trial && trial.statements.length > 0 && (
        <>
          <p>The statement{trial.statements.length > 1 ? 's' : ''} as rewritten:</p>
          <pre data-testid="fix-rewritten">{trial.statements.join(';\n')}</pre>
        </>
      )}
      {trial?.plan_before && trial.plan_after && (
        <div className="field-row" data-testid="fix-plans">
          <div>
            Plan before <PlanSteps plan={trial.plan_before} />
          </div>
          <div>
            Plan after <PlanSteps plan={trial.plan_after} />
          </div>
        </div>
      )}
      {trial?.plan_error && <p className="muted">No plan with the remedy: {trial.plan_error}</p>}
      {trial?.side_effects && <SideEffects effects={trial.side_effects} />}
      {/* what a newer API adds still: shown as it comes */}
      {more.length > 0 && <Fields fields={more} testId="fix-remedy-more" />}
    </section>
  )
}
