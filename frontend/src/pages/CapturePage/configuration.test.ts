import { describe, expect, it } from 'vitest'
import type { Variable } from '../../client'
import { configurationCounts, configurationRows } from './configuration'

const v = (name: string, comparison: string, value = '1', host_dependent = false): Variable =>
  ({ name, value, default: comparison === 'unknown' ? null : '0', comparison, host_dependent }) as Variable

const variables = [
  v('max_connections', 'differs', '77'),
  v('autocommit', 'default'),
  v('hostname', 'unknown', 'db1'),
  v('innodb_buffer_pool_instances', 'differs', '8', true),
  v('innodb_change_buffering', 'differs', 'all'),
  v('alter_algorithm', 'implied', 'COPY'),
]

describe('configurationRows', () => {
  it('shows the team’s own settings first, by name, then unknown, then implied, then default', () => {
    expect(configurationRows(variables, 'all').map((r) => r.name)).toEqual([
      'innodb_buffer_pool_instances',
      'innodb_change_buffering',
      'max_connections',
      'hostname',
      'alter_algorithm',
      'autocommit',
    ])
  })

  it('filters by comparison and by a search in names and values', () => {
    expect(configurationRows(variables, 'differs').map((r) => r.name)).toHaveLength(3)
    expect(configurationRows(variables, 'unknown').map((r) => r.name)).toEqual(['hostname'])
    expect(configurationRows(variables, 'all', ' INNODB ').map((r) => r.name)).toEqual([
      'innodb_buffer_pool_instances',
      'innodb_change_buffering',
    ])
    expect(configurationRows(variables, 'all', 'db1').map((r) => r.name)).toEqual(['hostname'])
  })

  it('does not reorder the captured list it is given', () => {
    const copy = [...variables]
    configurationRows(variables, 'all')
    expect(variables).toEqual(copy)
  })
})

describe('configurationCounts', () => {
  it('counts each comparison and the differing values the host computes', () => {
    expect(configurationCounts(variables)).toEqual({
      all: 6,
      differs: 3,
      unknown: 1,
      default: 1,
      implied: 1,
      hostDependentDiffers: 1,
    })
  })
})
