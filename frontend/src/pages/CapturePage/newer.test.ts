import { describe, expect, it } from 'vitest'
import type { CaptureRead, CheckRead } from '../../client'
import { dumpOf, identifierCount, orderedOf } from './newer'

const capture = (more: object) => ({ id: 1, target: 't', status: 'succeeded', ...more }) as unknown as CaptureRead
const check = (more: object) => ({ id: 1, status: 'succeeded', ...more }) as unknown as CheckRead

describe('fields of a newer API', () => {
  it('reads as absent on an API that does not send them', () => {
    expect(orderedOf(check({}))).toBeNull()
    expect(dumpOf(capture({}))).toBeNull()
    expect(identifierCount(capture({ identifiers: null }))).toBeNull()
  })

  it('reads them when sent, leaving out an ordered row without its five text fields', () => {
    const row = { severity: 'locks_out', kind: 'account', subject: 'p', outcome: 'missing', evidence: 'e' }
    expect(orderedOf(check({ ordered: [row, { severity: 'x' }, null] }))).toEqual([row])
    expect(dumpOf(capture({ dump: { dataset: 'capture-1' } }))?.dataset).toBe('capture-1')
    expect(identifierCount(capture({ identifiers: [{}, {}] }))).toBe(2)
  })
})
