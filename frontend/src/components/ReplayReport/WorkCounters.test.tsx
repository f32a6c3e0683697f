import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { CounterChange, FingerprintResult, VariantFinding, VariantSummary } from '../../client'
import { CauseAndWork, CauseCounts, WorkTable, rangeText } from './WorkCounters'

const ROWS: CounterChange = {
  counter: 'rows_examined', label: 'rows examined', base: { mean: 16049, low: 16049, high: 16049 },
  other: { mean: 802450, low: 802450, high: 802450 }, ratio: 50, moved: true,
  text: 'rows examined 16,049 -> 802,450, 50x',
}  // prettier-ignore
const SCANS: CounterChange = { ...ROWS, counter: 'select_scan', moved: false, text: 'full scans 1 -> 1.2, 1.2x' }
const FINDING: VariantFinding = {
  group: 'slower', causes: [], p_value: 0.001, q_value: 0.01, work: [ROWS, SCANS], clock: 'server', net: null,
  per_statement_cost_only: false, findings: [], stages: [],
  cause: { kind: 'work', text: 'more work: rows examined 16,049 -> 802,450, 50x' },
}  // prettier-ignore

afterEach(cleanup)

describe('work counters', () => {
  it('says a counter that differed between executions as a range', () => {
    expect(rangeText('rows_examined', { mean: 16049, low: 16049, high: 16049 })).toBe('16,049')
    expect(rangeText('rows_examined', { mean: 150, low: 100, high: 200 })).toBe('100-200')
    expect(rangeText('cpu_time_s', { mean: 0.0025, low: 0.0025, high: 0.0025 })).toBe('2.50 ms')
  })

  it('shows the cause and the counters that moved, not the ones that only differ', () => {
    const view = render(<CauseAndWork finding={FINDING} variant="b" />)
    const shown = view.getByTestId('variant-cause-b')
    expect(shown.textContent).toContain('work more work: rows examined 16,049 -> 802,450, 50x')
    expect(view.getByTestId('work-b-rows_examined').querySelector('strong')).not.toBeNull()
    expect(view.queryByTestId('work-b-select_scan')).toBeNull()
    const quiet = render(<CauseAndWork finding={{ ...FINDING, group: 'same', cause: null, work: [SCANS] }} variant="c" />)
    expect(quiet.queryByTestId('variant-cause-c')).toBeNull() // a same fingerprint whose CPU time differs: nothing
  })

  it('leaves a known cause to the group and shows nothing without cause or counters', () => {
    const known = { ...FINDING, work: [], cause: { kind: 'known cause' as const, text: 'a removed function' } }
    const view = render(<CauseAndWork finding={known} variant="b" />)
    expect(view.queryByTestId('variant-cause-b')).toBeNull()
  })

  it('counts the slower and faster fingerprints by cause', () => {
    const summary = { variant: 'b', slower_causes: { work: 2, 'time only': 1 }, faster_causes: { 'plan change': 1 } }
    const view = render(<CauseCounts summary={summary as unknown as VariantSummary} />)
    expect(view.getByTestId('causes-b').textContent).toBe('slower 3 (work 2, time only 1), faster 1 (plan change 1)')
  })

  it('tables the work per execution on every variant', () => {
    const report = {
      fingerprint_id: 'f1',
      work: {
        a: { statements: 1, executions: 10, counters: { rows_examined: ROWS.base } },
        b: { statements: 1, executions: 12, counters: { rows_examined: ROWS.other } },
      },
    } as unknown as FingerprintResult
    const view = render(<WorkTable report={report} variants={['a', 'b']} />)
    const table = view.getByTestId('work-f1')
    expect(table.textContent).toContain('b (12 runs)')
    expect(table.querySelector('tbody tr')?.textContent).toBe('rows examined16,049802,450')
  })
})
