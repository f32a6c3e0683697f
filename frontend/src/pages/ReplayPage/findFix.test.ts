import { describe, expect, it } from 'vitest'
import type { FixSearchRead, VerdictRead } from '../../client'
import { fixResult } from '../../test/fixSearches'
import { defaultFixVariant, fixVariants, searchesByFingerprint, searchState } from './findFix'

const ratio = (verdict: VerdictRead['verdict']): VerdictRead => ({
  ratio: 1,
  low: 1,
  high: 1,
  rounds: 5,
  method: 'paired rounds',
  mde: 0.05,
  verdict,
  reason: '',
})

describe('fixVariants', () => {
  const variants = ['base', 'a', 'b']
  it('offers every variant but the baseline, the slower ones flagged, the first slower chosen', () => {
    const choices = fixVariants({ ratios: { a: ratio('no significant difference'), b: ratio('regression') } }, variants, 'base')
    expect(choices).toEqual([
      { name: 'a', slower: false },
      { name: 'b', slower: true },
    ])
    expect(defaultFixVariant(choices)).toBe('b')
  })

  it('chooses the first variant when none is slower (any fingerprint may be searched), none without one', () => {
    expect(defaultFixVariant(fixVariants({ ratios: {} }, variants, 'base'))).toBe('a')
    expect(fixVariants({ ratios: {} }, ['base'], 'base')).toEqual([])
    expect(defaultFixVariant([])).toBe('')
  })
})

describe('searchesByFingerprint and searchState', () => {
  const search = (id: number, fingerprint_id: string, result: FixSearchRead['result'] = null) =>
    ({ id, fingerprint_id, status: result ? 'succeeded' : 'running', result }) as FixSearchRead

  it("groups a replay's searches by fingerprint, keeping the order given", () => {
    const grouped = searchesByFingerprint([search(3, 'f1'), search(2, 'f2'), search(1, 'f1')])
    expect([...grouped].map(([k, list]) => [k, list.map((s) => s.id)])).toEqual([
      ['f1', [3, 1]],
      ['f2', [2]],
    ])
  })

  it('says the outcome once there is one, else the status', () => {
    expect(searchState(search(1, 'f', fixResult('restored', { remedy: 'semijoin=on' })))).toBe('restored by semijoin=on')
    expect(searchState(search(1, 'f', fixResult('no remedy found')))).toBe('no remedy found')
    expect(searchState(search(1, 'f'))).toBe('running')
  })
})
