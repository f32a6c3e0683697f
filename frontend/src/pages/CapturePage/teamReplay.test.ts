import { describe, expect, it } from 'vitest'
import type { TargetRead } from '../../client'
import { defaultOldTarget, optionTargets, teamReplayBody } from './teamReplay'

const target = (name: string, provisioner: TargetRead['provisioner'], flavor: TargetRead['flavor'] = 'mariadb', version: string | null = null) =>
  ({ id: 1, name, flavor, version, provisioner }) as TargetRead

const targets = [
  target('staging', 'existing'),
  target('mysql-8.4', 'local', 'mysql'),
  target('mariadb-10.11', 'local'),
  target('mariadb-11.8', 'tarball'),
]

describe('team replay', () => {
  it('offers only targets that start with an option file', () => {
    expect(optionTargets(targets).map((t) => t.name)).toEqual(['mysql-8.4', 'mariadb-10.11', 'mariadb-11.8'])
  })

  it('starts from the captured target when the lab runs it, else from a lab target of its series', () => {
    expect(defaultOldTarget({ target: 'mariadb-11.8', flavor: 'mariadb', version: '11.8.9-MariaDB' }, targets)).toBe('mariadb-11.8')
    expect(defaultOldTarget({ target: 'staging', flavor: 'mariadb', version: '10.11.6-MariaDB-log' }, targets)).toBe('mariadb-10.11')
    expect(defaultOldTarget({ target: 'staging', flavor: 'mysql', version: '5.7.44' }, targets)).toBe('')
  })

  it('replays the captured queries with each target’s own version of the settings, the old one first', () => {
    const body = teamReplayBody(3, 'shop', 'SELECT 1;\n', [
      { target: 'mariadb-10.11', options: { 'max-connections': '77', 'innodb-change-buffer-max-size': '30' } },
      { target: 'mariadb-11.8', options: { 'max-connections': '77' } },
    ])
    expect(body.dataset).toBe('shop')
    expect(body.queries).toBe('SELECT 1;\n')
    expect(body.variants).toEqual([
      { target: 'mariadb-10.11', name: 'mariadb-10.11 (team settings)', options: { 'max-connections': '77', 'innodb-change-buffer-max-size': '30' } },
      { target: 'mariadb-11.8', name: 'mariadb-11.8 (team settings)', options: { 'max-connections': '77' } },
    ])
  })
})
