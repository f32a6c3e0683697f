import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { FingerprintResult, ReplayReport, StageChange, VariantFinding } from '../../client'
import { ReplaySummary } from './ReplaySummary'
import { AlsoFindings, StageTable, stageTime } from './Stages'
import { CauseAndWork } from './WorkCounters'

const SENDING: StageChange = {
  stage: 'sending data', base_s: 0.000084, other_s: 0.00122, share: 0.85, moved: true,
  ratio: { ratio: 14.3, low: 12, high: 17, rounds: 10, method: 'paired rounds', mde: 0.1, verdict: 'regression', reason: 'r' },
  text: 'sending data 0.0842 -> 1.22 ms, 14.3x',
}  // prettier-ignore
const PLAN = { kind: 'plan change' as const, text: 'plan changed: join order country, city, a, cu -> cu, a, city, country' }
const BREAK: VariantFinding = {
  group: 'breaks', causes: [], p_value: 0.001, q_value: 0.002, work: [], clock: 'server', net: null,
  per_statement_cost_only: false, cause: null, stages: [SENDING],
  findings: [{ kind: 'breaks', cause: null }, { kind: 'slower', cause: PLAN }, { kind: 'plan changed', cause: PLAN }],
}  // prettier-ignore

afterEach(cleanup)

describe('every finding and where the time went', () => {
  it('says a regression inside a break beside the break, with its own cause', () => {
    const view = render(<AlsoFindings finding={BREAK} variant="mariadb-11.8" />)
    const also = view.getByTestId('variant-also-mariadb-11.8')
    expect([...also.children].map((one) => one.getAttribute('data-finding'))).toEqual(['slower', 'plan changed'])
    expect(also.textContent).toContain('also slower: plan changed: join order country')
    // a group that names its findings says nothing more
    const named = { ...BREAK, group: 'slower, plan changed' as const, findings: BREAK.findings.slice(1) }
    expect(render(<AlsoFindings finding={named} variant="b" />).queryByTestId('variant-also-b')).toBeNull()
  })

  it('shows the stages that moved in bold beside the cause', () => {
    const view = render(<CauseAndWork finding={{ ...BREAK, cause: { kind: 'stage', text: 'time in stages: ...' } }} variant="b" />)
    expect(view.getByTestId('stage-b-sending data').querySelector('strong')?.textContent).toBe(SENDING.text)
  })

  it('tables the time by stage per execution on every variant, the total and CPU time', () => {
    expect(stageTime(0.0000123)).toBe('12.3 us')
    expect(stageTime(0.00122)).toBe('1.22 ms')
    const report = {
      fingerprint_id: 'f1',
      variants: { b: BREAK },
      stages: {
        a: { executions: 20, passes: 10, total_s: 0.0001, stages: { 'sending data': 0.00008, starting: 0.00002 }, cpu_s: null, incomplete: 0 },
        b: { executions: 22, passes: 10, total_s: 0.0013, stages: { 'sending data': 0.00122, starting: 0.00008 }, cpu_s: null, incomplete: 2 },
      },
    } as unknown as FingerprintResult  // prettier-ignore
    const view = render(<StageTable report={report} variants={['a', 'b', 'c']} />)
    const table = view.getByTestId('stages-f1')
    expect(table.querySelector('thead')?.textContent).toBe('time by stage per executiona (20 runs)b (22 runs, 2 incomplete)')
    const rows = [...table.querySelectorAll('tbody tr')].map((row) => row.textContent)
    expect(rows).toEqual(['sending data80.0 us1.22 ms', 'starting20.0 us80.0 us', 'total100 us1.30 ms'])
    expect(view.getByTestId('stage-moved-b-sending data').textContent).toBe('1.22 ms')
    expect(render(<StageTable report={{ ...report, stages: {} }} variants={['a']} />).container.textContent).toBe('')
  })

  it('counts a regression inside a break in the summary: "1 also a break"', () => {
    const summary = {
      variant: 'mariadb-11.8', version: '11.8', breaks: 1, new_errors: 0, resolved_errors: 0, result_changes: 1,
      slower: 1, slower_plan_changed: 1, slower_timed_out: 0, slower_also_break: 1, faster: 0, faster_plan_changed: 0,
      faster_also_break: 0, slower_cost_only: 0, faster_cost_only: 0, same: 3, undecided: 0, undecided_median_mde: null,
      plan_changes: 2, refused: 0, timeouts: 0, slower_causes: { 'plan change': 1 }, faster_causes: {}, text: '',
    }  // prettier-ignore
    const report = { summary: [summary], variants: [], baseline: 'mariadb-10.11', stages: 'Time by stage' } as unknown as ReplayReport
    const view = render(<ReplaySummary report={report} />)
    expect(view.getByTestId('summary-slower').textContent).toBe('1 (1 / 0)1 also a break')
    expect(view.getByTestId('summary-faster').textContent).toBe('0 (0)')
    expect(view.getByTestId('replay-stages').textContent).toBe(' Time by stage.')
  })
})
