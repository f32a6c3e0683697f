import { describe, expect, it } from 'vitest'
import type { ArticleCaseRead, ExperimentRead, SummaryRow } from '../../client'
import { caseRatios } from './ratios'

const article = (point: string, value: number, preset = 'default', other_target = false): ArticleCaseRead => ({
  point,
  value,
  baseline_value: 7.93,
  unit: 's',
  ratio: value / 7.93,
  preset,
  other_target,
})

const CASES = [
  article('8.0 redo off', 2.82, 'redo-off'),
  article('8.0 skip-log-bin', 6.71, 'skip-log-bin'),
  article('5.7', 2.91, 'default', true),
]

function experiment(variants: [string, string, string][]): ExperimentRead {
  return {
    id: 1,
    name: 'e',
    workload: 'insert-truncate',
    iterations: 100,
    parameters: {},
    policy: 'warm',
    schedule: 'interleaved',
    rounds: 10,
    block: 10,
    aa_control: false,
    seed: 1,
    created_at: '2026-01-01T00:00:00Z',
    variants: variants.map(([name, target, preset]) => ({ name, target, preset, options: {}, redo_log: 'enabled' })),
  }
}

const row = (variant: string, median_s: number | null): SummaryRow => ({
  variant,
  variant_index: 0,
  iterations: 100,
  median_s,
  p95_s: null,
  total_s: 0,
  ratio: null,
})

describe("the article's ratios beside the latest run's", () => {
  it('matches each case to a variant by preset on the baseline target, or by another target', () => {
    const run = experiment([
      ['mysql default', 'mysql-9.7', 'default'],
      ['mysql redo-off', 'mysql-9.7', 'redo-off'],
      ['mariadb', 'mariadb-10.11', 'default'],
    ])
    const { baseline, rows } = caseRatios(CASES, run, [row('mysql default', 0.08), row('mysql redo-off', 0.02), row('mariadb', 0.04)])
    expect(baseline).toBe('mysql default')
    expect(rows.map((r) => [r.variant, r.measured])).toEqual([
      ['mysql redo-off', 0.25],
      [null, null], // the run has no skip-log-bin variant
      ['mariadb', 0.5],
    ])
    expect(rows[0].case.ratio).toBeCloseTo(0.3556, 4)
  })

  it('has no measured ratio without a default variant to divide by', () => {
    const run = experiment([['redo', 'mysql-9.7', 'redo-off']])
    const { baseline, rows } = caseRatios(CASES, run, [row('redo', 0.02)])
    expect(baseline).toBeNull()
    expect(rows.every((r) => r.measured === null && r.variant === null)).toBe(true)
  })
})
