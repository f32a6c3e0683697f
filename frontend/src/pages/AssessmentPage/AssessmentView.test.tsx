import { cleanup, render } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import { afterEach, describe, expect, it } from 'vitest'
import type { AssessmentRead, TodoItem } from '../../client'
import { AssessmentView } from './AssessmentView'

afterEach(cleanup)

const item = (area: TodoItem['area'], text: string, action: string, evidence: string): TodoItem => ({
  area, subject: text, text, action, evidence, kind: 'replay', job_id: 7,
})  // prettier-ignore

const ASSESSMENT = {
  id: 9, target: 'team', versions: ['mariadb-11.8'], baseline: 'mariadb-10.11', dataset: null, budget_min: 60,
  status: 'succeeded', error: null, progress: null, share_token: null, shared: false,
  created_at: '2026-12-06T09:00:00Z', started_at: null, finished_at: null,
  children: { capture_id: 3, why_no_capture: '', versions: [
    { version: 'mariadb-11.8', check_id: 5, replay_id: 7, fix_search_ids: [11], why_no_check: '', why_no_replay: '' },
  ] },
  report: { capture_id: 3, source_version: '10.11.14', exit_bits: 19, versions: [{
    version: 'mariadb-11.8', server: null, dataset_sha256: null, verdict: 'mariadb-11.8: 1 blocker, 1 query slower with a proven fix',
    blockers: 1, other_results: 0, slower: 1, slower_fixed: 1, behaviour: 0, plan_changes: 0, exit_bits: 19,
    todo: [
      item('does_not_start', 'option old_alter_table=1: refused', 'remove `old_alter_table=1` from [mysqld]', '/captures/3#check-5'),
      item('slower', '3.50x slower on mariadb-11.8: plan changed', 'apply: SET STATEMENT ...', '/fixsearches/11'),
    ],
  }] },
} as unknown as AssessmentRead  // prettier-ignore

describe('AssessmentView', () => {
  it('opens with the verdict line and the to-do list in order, each item with its action and evidence; nothing collapsed', () => {
    const view = render(
      <MemoryRouter>
        <AssessmentView assessment={ASSESSMENT} documents={{ md: '/md', pdf: '/pdf' }} />
      </MemoryRouter>,
    )
    expect(view.getByTestId('assessment-verdict').textContent).toBe('mariadb-11.8: 1 blocker, 1 query slower with a proven fix')
    const items = view.getAllByTestId('todo-item')
    expect(items.map((li) => li.getAttribute('data-area'))).toEqual(['does_not_start', 'slower'])
    expect(items[0].textContent).toContain('Will not start: option old_alter_table=1: refused.')
    expect(items[0].querySelector('[data-testid=todo-action]')!.textContent).toBe('Do: remove `old_alter_table=1` from [mysqld]')
    expect(items[1].querySelector('a')!.getAttribute('href')).toBe('/fixsearches/11')
    expect(view.getByText('Will not start (1)')).toBeTruthy()
    expect(view.getByText('Slower (1)')).toBeTruthy()
    expect(view.container.querySelector('details')).toBeNull()
    expect(view.getByTestId('assessment-pdf').getAttribute('href')).toBe('/pdf')
  })

  it('says "out of budget" beside the child the budget ended, and in its not-evaluated item', () => {
    const stopped = {
      ...ASSESSMENT,
      children: { ...ASSESSMENT.children, stopped_by_budget: { kind: 'replay', id: 7 } },
      report: { ...ASSESSMENT.report!, versions: [{ ...ASSESSMENT.report!.versions[0], todo: [
        item('not_evaluated', "the replay could not evaluate this version (out of budget: the assessment's budget ended it)",
          'assess again with a larger budget (--budget-min)', '/replays/7'),
      ] }] },
    } as AssessmentRead  // prettier-ignore
    const view = render(
      <MemoryRouter>
        <AssessmentView assessment={stopped} documents={{ md: '/md', pdf: '/pdf' }} />
      </MemoryRouter>,
    )
    const children = view.getByTestId('assessment-children').textContent!
    expect(children).toContain('replay #7 (out of budget)')
    expect(children).not.toContain('#5 (out of budget)')
    expect(view.getAllByTestId('todo-item')[0].textContent).toContain('out of budget')
    expect(view.container.textContent).not.toContain('cancelled')
  })
})
