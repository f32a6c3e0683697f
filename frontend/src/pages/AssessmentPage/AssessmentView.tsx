import type { ReactNode } from 'react'
import { Link } from 'react-router-dom'
import type { AssessmentRead, TodoItem, VersionReport } from '../../client'
import { JobHeader } from '../../components/JobPage/JobHeader'

/** The to-do list's areas in words, in the report's order (assessment/report.py AREAS). */
export const AREA_TITLES: Record<TodoItem['area'], string> = {
  not_evaluated: 'Not evaluated',
  does_not_start: 'Will not start',
  locks_out: 'Cannot log in',
  does_not_load: 'No longer loads or parses',
  changes_results: 'Returns other results',
  slower: 'Slower',
  changes_behaviour: 'Changes behaviour',
}
const AREAS = Object.keys(AREA_TITLES) as TodoItem['area'][]

interface Props {
  assessment: AssessmentRead
  /** Beside the status: Cancel while it runs (none on a share page). */
  actions?: ReactNode
  /** Under the title: exports and share (signed in), or the share link's exports. */
  tools?: ReactNode
  /** Where its documents are (Markdown and PDF), or none (a share link: PDF only). */
  documents: { md?: string; pdf: string }
}

function Evidence({ item }: { item: TodoItem }) {
  if (!item.evidence) return null
  return (
    <Link to={item.evidence} data-testid="todo-evidence">
      evidence
    </Link>
  )
}

/** One version's verdict line and its ordered to-do list: each item one line, its action and link. */
function VersionTodo({ version }: { version: VersionReport }) {
  return (
    <section className="card" data-testid="assessment-version">
      <h2 data-testid="assessment-verdict">{version.verdict}</h2>
      {version.todo.length === 0 ? (
        <p className="muted">Nothing to do before this upgrade.</p>
      ) : (
        <ol className="todo-list" data-testid="assessment-todo">
          {version.todo.map((item, n) => (
            <li key={n} data-testid="todo-item" data-area={item.area}>
              <strong>{AREA_TITLES[item.area]}:</strong> {item.text}.{' '}
              {item.action && <span data-testid="todo-action">Do: {item.action}</span>} <Evidence item={item} />
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}

/** Per version, per area (each with its count), the items with their subjects and evidence. */
function EvidenceSections({ version }: { version: VersionReport }) {
  return (
    <section data-testid="assessment-evidence">
      <h2>{version.version}: evidence by area</h2>
      {AREAS.map((area) => {
        const items = version.todo.filter((item) => item.area === area)
        if (items.length === 0) return null
        return (
          <div key={area} className="table-wrap">
            <h3>
              {AREA_TITLES[area]} ({items.length})
            </h3>
            <table className="table">
              <thead>
                <tr>
                  <th>What</th>
                  <th>Found</th>
                  <th>Do</th>
                  <th>Evidence</th>
                </tr>
              </thead>
              <tbody>
                {items.map((item, n) => (
                  <tr key={n}>
                    <td className="wrap">{item.subject}</td>
                    <td className="wrap">{item.text}</td>
                    <td className="wrap">{item.action || '-'}</td>
                    <td>{item.evidence ? <Link to={item.evidence}>{`${item.kind} ${item.job_id ?? ''}`}</Link> : '-'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      })}
    </section>
  )
}

/** " (out of budget)" beside the child the assessment's budget ended (its own page says cancelled). */
function budgetMark(children: AssessmentRead['children'], kind: string, id: number) {
  const stopped = children.stopped_by_budget
  return stopped != null && stopped.kind === kind && stopped.id === id ? ' (out of budget)' : ''
}

/** The children, each its own job page (linked). */
function Children({ assessment }: { assessment: AssessmentRead }) {
  const { children } = assessment
  return (
    <ul className="muted" data-testid="assessment-children">
      {children.capture_id != null ? (
        <li>
          Capture <Link to={`/captures/${children.capture_id}`}>#{children.capture_id}</Link>
          {budgetMark(children, 'capture', children.capture_id)}
        </li>
      ) : (
        <li>Capture: {children.why_no_capture}</li>
      )}
      {children.versions.map((v) => (
        <li key={v.version}>
          {v.version}: check{' '}
          {v.check_id != null && children.capture_id != null ? (
            <>
              <Link to={`/captures/${children.capture_id}#check-${v.check_id}`}>#{v.check_id}</Link>
              {budgetMark(children, 'check', v.check_id)}
            </>
          ) : (
            v.why_no_check
          )}
          , replay{' '}
          {v.replay_id != null ? (
            <>
              <Link to={`/replays/${v.replay_id}`}>#{v.replay_id}</Link>
              {budgetMark(children, 'replay', v.replay_id)}
            </>
          ) : (
            v.why_no_replay
          )}
          {v.fix_search_ids.length > 0 && (
            <>
              , fix searches{' '}
              {v.fix_search_ids.map((id) => (
                <Link key={id} to={`/fixsearches/${id}`}>
                  #{id}
                  {budgetMark(children, 'fix_search', id)}{' '}
                </Link>
              ))}
            </>
          )}
        </li>
      ))}
    </ul>
  )
}

/** /assessments/:id and its share page: the first screen says per version the verdict line and the
 * to-do list; below, the evidence per area and the children. Nothing is collapsed. */
export function AssessmentView({ assessment, actions, tools, documents }: Props) {
  const report = assessment.report
  const progress = assessment.progress
  const source = assessment.target ?? (assessment.children.capture_id != null ? `capture ${assessment.children.capture_id}` : 'option file')
  return (
    <>
      <JobHeader
        title={`Upgrade assessment #${assessment.id}: ${source} → ${assessment.versions.join(', ')}`}
        status={assessment.status}
        statusTestId="assessment-status"
        actions={actions}
        meta={
          <p className="muted">
            {progress ? `Step ${progress.done}/${progress.steps}: ${progress.step} · ${progress.minutes} of ${assessment.budget_min} min · ` : ''}
            Documents: {documents.md && (
              <>
                <a href={documents.md} data-testid="assessment-md">Markdown</a> ·{' '}
              </>
            )}
            <a href={documents.pdf} data-testid="assessment-pdf">PDF</a>
          </p>
        }
      />
      {assessment.error && <p className="notice">{assessment.error}</p>}
      {report?.versions.map((version) => <VersionTodo key={version.version} version={version} />)}
      {tools}
      {report?.versions.map((version) => <EvidenceSections key={version.version} version={version} />)}
      <h2>Its jobs</h2>
      <Children assessment={assessment} />
    </>
  )
}
