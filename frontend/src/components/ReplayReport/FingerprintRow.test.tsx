import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { FingerprintResult } from '../../client'
import { FingerprintRow } from './FingerprintRow'

const REPORT = {
  fingerprint_id: '35FC3906162972DA', class_id: '35FC3906162972DA', fingerprint: 'select * from t where id = ?',
  group: 'same', median_s: { a: 0.001 }, ratios: {}, statements: [], variants: {}, floor: null, rounds: 20,
  work: {}, fix_searches: [],
} as unknown as FingerprintResult  // prettier-ignore

afterEach(cleanup)

function row(report: FingerprintResult) {
  return render(
    <table>
      <tbody>
        <FingerprintRow report={report} variants={['a']} open={false} onToggle={() => {}} />
      </tbody>
    </table>,
  )
}

describe('FingerprintRow', () => {
  it("names the pt-query-digest class a team finds in its report (issue 47)", () => {
    expect(row(REPORT).getByTestId('class-id').textContent).toBe('pt class 0x35FC3906162972DA')
  })

  it('names the host that timed it and its rounds in a sharded replay, nothing on one host', () => {
    expect(row({ ...REPORT, host: 'local@bench-2', rounds: 25 }).getByTestId('fingerprint-host').textContent).toBe(
      '25 rounds on local@bench-2',
    )
    cleanup()
    expect(row(REPORT).queryByTestId('fingerprint-host')).toBeNull()
  })

  it('shows no class for a report stored before pt classes', () => {
    expect(row({ ...REPORT, fingerprint_id: 'a1b2', class_id: null }).queryByTestId('class-id')).toBeNull()
  })
})
