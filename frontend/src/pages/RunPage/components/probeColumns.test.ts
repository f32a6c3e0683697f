import { describe, expect, it } from 'vitest'
import type { VariantProbes } from '../../../client'
import { columnsOf } from './probeColumns'

const variant: VariantProbes = {
  variant: 'a',
  variant_index: 0,
  unavailable: [],
  top_mutex_waits: [],
  iterations_total: 4,
  iterations: [
    { iteration: 1, hit_rate: 0.99, client_s: 0.1 },
    { iteration: 2, hit_rate: null, client_s: 0.2 },
    { iteration: 5, client_s: 0.3 },
    { iteration: 7, hit_rate: 0.5, client_s: 0.4 },
  ],
}

describe('columnsOf', () => {
  it('keeps the iterations that have the value, in order, as x and y columns', () => {
    expect(columnsOf(variant, (p) => (p.hit_rate == null ? null : p.hit_rate * 100))).toEqual({
      x: [1, 7],
      y: [99, 50],
    })
    expect(columnsOf(variant, (p) => p.client_s).x).toEqual([1, 2, 5, 7])
    expect(columnsOf(variant, (p) => p.server_s)).toEqual({ x: [], y: [] })
  })
})
