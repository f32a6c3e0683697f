import { describe, expect, it } from 'vitest'
import type { FixSearchRead, FixSearchResult, FixTrialRead } from '../../client'
import { fixCandidate, fixResult, fixTrial, fixVerdict } from '../../test/fixSearches'
import { candidateRows, lagsProgress, otherFields, outcomeSentence, restoringRemedy, stateCounts } from './rows'

const candidate = (name: string, source = 'differs') => fixCandidate(name, { source })
const verdict = (ratio: number) => fixVerdict(ratio)
// a measured trial: equal results in 5 rounds; a refused one: nothing measured
const trial = (name: string, status: string, more: Partial<FixTrialRead> = {}) =>
  fixTrial(name, status, status === 'refused' ? more : { ratio_to_baseline: verdict(1), results_equal: true, rounds: 5, ...more })
const result = (outcome: string, more: Partial<FixSearchResult> = {}) =>
  fixResult(outcome, { tried: 2, rounds: 10, minutes: 1.25, ...more })

type Search = Pick<FixSearchRead, 'candidates' | 'tried' | 'status' | 'result' | 'progress'>

const CANDIDATES = [candidate('index', 'plan'), candidate('semijoin=on'), candidate('both'), candidate('lever', 'lever')]

describe('candidateRows', () => {
  it('lists the trials in the order measured, then the candidates not measured in evidence order', () => {
    const search: Search = {
      candidates: CANDIDATES,
      // the server measured "semijoin=on" before "index" (its order, not the candidates' list order)
      tried: [trial('semijoin=on', 'does not restore'), trial('index', 'refused')],
      status: 'running',
      result: null,
      progress: null,
    }
    const rows = candidateRows(search)
    expect(rows.map((r) => [r.order, r.name, r.state])).toEqual([
      [1, 'semijoin=on', 'does not restore'],
      [2, 'index', 'refused'],
      [null, 'both', 'waiting'],
      [null, 'lever', 'waiting'],
    ])
    expect(rows[1].candidate?.source).toBe('plan')
    expect(stateCounts(rows)).toEqual([
      ['does not restore', 1],
      ['refused', 1],
      ['waiting', 2],
    ])
  })

  it('says "not tried" for what a final search left, and marks the remedy', () => {
    const search: Search = {
      candidates: CANDIDATES,
      tried: [trial('index', 'does not restore'), trial('semijoin=on', 'restores')],
      status: 'succeeded',
      result: result('restored', { remedy: 'semijoin=on' }),
      progress: null,
    }
    const rows = candidateRows(search)
    expect(rows.filter((r) => r.remedy).map((r) => r.name)).toEqual(['semijoin=on'])
    expect(rows.slice(2).map((r) => r.state)).toEqual(['not tried', 'not tried'])
  })

  it('keeps a trial whose candidate the record does not list', () => {
    const rows = candidateRows({ candidates: [], tried: [trial('gone', 'undecided')], status: 'succeeded', result: null })
    expect(rows).toMatchObject([{ name: 'gone', candidate: null, state: 'undecided' }])
  })
})

describe('outcomeSentence', () => {
  it('names the remedy that restores', () => {
    expect(outcomeSentence(result('restored', { remedy: 'semijoin=on' }))).toBe(
      'Restored by semijoin=on (2 candidates tried, 10 rounds, 1.3 min).',
    )
    expect(outcomeSentence(result('cancelled', { minutes: 0.5 }))).toBe('Cancelled (2 candidates tried, 10 rounds, 30 s).')
  })

  it('says no remedy was found, and how many an out-of-budget search left', () => {
    expect(outcomeSentence(result('no remedy found', { tried: 1 }))).toMatch(/^No remedy found: .*\(1 candidate tried,/)
    expect(outcomeSentence(result('out of budget', { not_tried: ['a', 'b'] }))).toMatch(/2 candidates not tried/)
  })

  it('says how many rounds and minutes more would have tried what an out-of-budget search left', () => {
    const sentence = outcomeSentence(result('out of budget', { not_tried: ['a', 'b'], more_rounds: 10, more_minutes: 0.42 }))
    expect(sentence).toMatch(/about 10 more rounds and 0.4 more minutes would have tried them\.$/)
  })

  it('shows an outcome it does not know as the server wrote it', () => {
    expect(outcomeSentence(result('side effects found'))).toMatch(/^side effects found \(/)
  })
})

describe('restoringRemedy', () => {
  it('joins the remedy with its candidate (what to apply) and its trial (the statements rewritten)', () => {
    const statements = ['SET STATEMENT semijoin=on FOR SELECT 1']
    const remedy = restoringRemedy({
      candidates: CANDIDATES,
      tried: [trial('semijoin=on', 'restores', { statements })],
      result: result('restored', { remedy: 'semijoin=on' }),
    })
    expect(remedy?.candidate?.apply).toBe('SET STATEMENT semijoin=on FOR')
    expect(remedy?.trial?.statements).toEqual(statements)
  })

  it('is null when none restored', () => {
    expect(restoringRemedy({ candidates: CANDIDATES, tried: [], result: result('no remedy found') })).toBeNull()
    expect(restoringRemedy({ candidates: CANDIDATES, tried: [], result: null })).toBeNull()
  })
})

describe('otherFields', () => {
  it('lists the fields a newer API adds, not the known ones nor empty ones', () => {
    const row = {
      candidate: { ...fixCandidate('g', { scope: 'global', extra: { line: 'semijoin=on' } }), side_effects: ['fp2'] },
      trial: { ...trial('g', 'restores'), plan_after: [], verified: 'whole replay' },
    }
    expect(otherFields(row)).toEqual([
      ['side_effects', ['fp2']],
      ['line', 'semijoin=on'],
      ['verified', 'whole replay'],
    ])
  })
})

describe('otherFields of a long remedy', () => {
  it('gives a rewritten view whole in the row\'s details (the row shows its start)', () => {
    const view = `CREATE OR REPLACE VIEW v AS select ${'`c`, '.repeat(60)}1`
    const row = { candidate: fixCandidate('view v rewritten', { source: 'view', apply: view }), trial: null }
    expect(otherFields(row)[0]).toEqual(['apply (whole)', view])
    expect(otherFields({ candidate: fixCandidate('short', { apply: 'SET STATEMENT a=1 FOR' }), trial: null })).toEqual([])
  })
})

describe('lagsProgress', () => {
  const base = { candidates: CANDIDATES, tried: [trial('index', 'refused')] }
  it('is true when the progress counts more trials than the page holds', () => {
    expect(lagsProgress({ ...base, progress: { phase: 'measuring', tried: 2, rounds_done: 5, minutes: 0.1, message: null } })).toBe(true)
    expect(lagsProgress({ ...base, progress: { phase: 'measuring', tried: 1, rounds_done: 5, minutes: 0.1, message: null } })).toBe(false)
  })

  it('is true while measuring without the candidates yet, false without progress', () => {
    const progress = { phase: 'measuring', tried: 0, rounds_done: 0, minutes: 0, message: '4 candidates' }
    expect(lagsProgress({ candidates: [], tried: [], progress })).toBe(true)
    expect(lagsProgress({ ...base, progress: null })).toBe(false)
  })
})
