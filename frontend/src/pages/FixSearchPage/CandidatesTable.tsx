import type { FixSearchRead } from '../../client'
import { useCollapsedRows } from '../../components/CollapsedRows'
import { Ratio } from '../../components/Ratio/Ratio'
import { Fields } from './FieldValue'
import { applyOf, candidateRows, otherFields, scopeOf, stateCounts, type CandidateRow } from './rows'
import { TableHead } from '../../components/Table/Table'

const badge = (state: string) => `badge badge-${state.replace(/[^a-z]+/g, '-')}`

// what to apply, shortened in the row (a rewritten view is a whole CREATE VIEW): whole in its details
const SHORT = 160
const short = (text: string) => (text.length > SHORT ? `${text.slice(0, SHORT)}...` : text)

function Equal({ value }: { value: boolean | null | undefined }) {
  if (value == null) return <span className="muted">-</span>
  return <span className={value ? undefined : 'badge badge-breaks'}>{value ? 'equal' : 'differ'}</span>
}

function Row({ row }: { row: CandidateRow }) {
  const { candidate, trial } = row
  const more = otherFields(row)
  return (
    <tr data-testid="fix-candidate" data-state={row.state} data-remedy={row.remedy || undefined}>
      <td className="num">{row.order ?? ''}</td>
      <td>
        <strong>{row.name}</strong>
        {scopeOf(row) !== 'statement' && (
          <>
            {' '}
            <span className="badge" data-testid="fix-scope">
              {scopeOf(row)}
            </span>
          </>
        )}
        {candidate && (
          <div className="muted">
            {candidate.source}: {candidate.note}
          </div>
        )}
        {applyOf(row) && <code className="muted fix-apply-short">{short(applyOf(row) ?? '')}</code>}
        {more.length > 0 && (
          <details>
            <summary className="muted">more ({more.length})</summary>
            <Fields fields={more} />
          </details>
        )}
      </td>
      <td>
        <span className={badge(row.state)} data-testid="fix-trial-state">
          {row.state}
        </span>
        {trial?.reason && (
          // a refusal is the server's own words: kept as they are
          <div className={row.state === 'refused' ? undefined : 'muted'} data-testid="fix-trial-reason">
            {row.state === 'refused' ? <code>{trial.reason}</code> : trial.reason}
          </div>
        )}
        {trial?.wrapper_cost && (
          <div className="muted" data-testid="fix-wrapper" title={trial.wrapper?.note}>
            like with like: every arm under the wrapper, whose own cost <Ratio value={trial.wrapper_cost} />
            {trial.wrapper_us != null && ` (${trial.wrapper_us >= 0 ? '+' : ''}${trial.wrapper_us.toFixed(1)} us per statement)`}
          </div>
        )}
        {trial?.plan_identity && (
          <div data-testid="fix-plan-identity">
            plan identity: {trial.plan_identity}
          </div>
        )}
        {trial?.side_effects && (
          <div data-testid="fix-trial-side-effects">
            side effects: {trial.side_effects.said}
            {trial.side_effects.side_effects.length > 0 && ` (${trial.side_effects.side_effects.map((e) => e.fingerprint).join('; ')})`}
          </div>
        )}
      </td>
      <td>
        <Ratio value={trial?.ratio_to_baseline} withVerdict />
      </td>
      <td>
        <Ratio value={trial?.ratio_to_variant} withVerdict />
        {trial?.variant_to_baseline && (
          <div className="muted" title="the variant as it is against the baseline, in the same rounds">
            gap <Ratio value={trial.variant_to_baseline} />
          </div>
        )}
      </td>
      <td>
        <Equal value={trial?.results_equal} />
      </td>
      <td className="num">
        {trial ? trial.rounds : ''}
        {trial?.clock && <div className="muted">{trial.clock} clock</div>}
      </td>
    </tr>
  )
}

/** Every candidate: those measured in the order tried (status, the server's words for a refusal,
 * ratios with intervals to the baseline and to the variant as it is, results equal, rounds), then
 * those not measured, collapsed past 20 with their count (the counts by status above the table).
 * Fields a newer API adds to a candidate or trial are listed under "more". */
export function CandidatesTable({ search }: { search: FixSearchRead }) {
  const rows = candidateRows(search)
  const { shown, toggle } = useCollapsedRows(rows, 'fix-candidates-more')
  if (rows.length === 0)
    return <p className="muted">No candidate yet: they are built once both servers have run the statement.</p>
  return (
    <>
      <p className="muted" data-testid="fix-state-counts">
        {stateCounts(rows)
          .map(([state, n]) => `${n} ${state}`)
          .join(', ')}
      </p>
      <table className="table fix-candidates" data-testid="fix-candidates">
        <TableHead
          columns={[
            { label: '#', className: 'fix-col-order' },
            { label: 'Candidate (source: note; what to apply)', className: 'fix-col-candidate' },
            { label: 'Status', className: 'fix-col-status' },
            { label: 'Against the baseline', title: "candidate's time / the baseline's" },
            { label: 'Against the variant', title: "candidate's time / the variant's as it is" }, 'Results',
            'Rounds',
          ]}
        />
        <tbody>
          {shown.map((row) => (
            <Row key={row.name} row={row} />
          ))}
        </tbody>
      </table>
      {toggle}
    </>
  )
}
