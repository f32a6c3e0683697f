import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Digest, Workload } from '../../client'
import { WorkloadTable } from './WorkloadTable'

afterEach(cleanup)

// A MariaDB capture with its statement history off (its default): every digest a digest text, the
// first two bound by the capture to values of their columns, the third not (a value on the left).
const digest = (text: string, bound: string | null, executions: number) =>
  ({
    digest: `d${executions}`, schema_name: 'app', text, text_source: 'digest_text', digest_text: text,
    executions, weight: executions / 10, total_s: null, avg_s: null, max_s: null, p95_s: null, p99_s: null,
    rows_sent: null, rows_examined: null, bound_text: bound,
  }) as Digest // prettier-ignore
const BOUND = digest('SELECT `total` FROM `app` . `orders` WHERE `id` = ?', 'SELECT `total` FROM `app` . `orders` WHERE `id` = 2', 5)
const PLAIN = digest('SELECT COUNT ( * ) FROM `app` . `orders`', 'SELECT COUNT( * ) FROM `app` . `orders`', 3)
const UNBOUND = digest('SELECT `a` FROM `app` . `t` WHERE ? = `a`', null, 2)
const PROBLEM = {
  code: 'consumer_off', words: '3 of 3 digests have only their digest text', fix: 'enable the history consumers',
} // prettier-ignore
const workload = (digests: Digest[], replayable: number) =>
  ({
    digests, executions: 10, quantiles: false, samples: false, limit: 1000, problems: [PROBLEM], replayable,
    empty: replayable === 0,
  }) as Workload // prettier-ignore

describe('WorkloadTable', () => {
  it('shows a bound digest text as the text a replay runs, an unbound one as not replayable', () => {
    render(<WorkloadTable captureId={2} workload={workload([BOUND, PLAIN, UNBOUND], 2)} />)
    const rows = screen.getAllByTestId('capture-digest')
    expect(rows.map((row) => row.querySelector('code')?.textContent)).toEqual([
      'SELECT `total` FROM `app` . `orders` WHERE `id` = 2',
      'SELECT COUNT( * ) FROM `app` . `orders`',
      'SELECT `a` FROM `app` . `t` WHERE ? = `a`',
    ])
    expect(rows[0].querySelector('code')?.getAttribute('title')).toBe(BOUND.text) // the digest text kept
    expect(screen.getAllByTestId('capture-digest-source').map((s) => s.textContent)).toEqual([
      'digest text, values bound',
      'digest text, values bound',
      'digest text only (not replayable)',
    ])
    expect(screen.getByTestId('capture-workload-problem').textContent).toMatch(/^Not all replayable: 3 of 3/)
  })

  it('says no digest is left out when every digest text was bound, and keeps the fix', () => {
    render(<WorkloadTable captureId={2} workload={workload([BOUND, PLAIN], 2)} />)
    const problem = screen.getByTestId('capture-workload-problem').textContent
    expect(problem).not.toMatch(/not( all)? replayable/i)
    expect(problem).toMatch(/^Every digest replayable, but: .*Fix: enable the history consumers$/)
  })
})
