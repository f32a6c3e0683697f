import { describe, expect, it } from 'vitest'
import type { AccountFindingRead, OptionFindingRead } from '../../client'
import { checkHeadline, findingGroups } from './findings'

const option = (name: string, outcome: string, words = ''): OptionFindingRead =>
  ({ name, line: `${name}=1`, outcome, words }) as OptionFindingRead
const account = (plugin: string, outcome: string, accounts: string[]): AccountFindingRead =>
  ({ plugin, accounts, outcome, words: '' }) as AccountFindingRead

describe('findingGroups', () => {
  it('orders settings and accounts by severity across their kinds, most severe first', () => {
    const groups = findingGroups({
      findings: [
        option('max_connections', 'accepted'),
        option('port', 'not_tried'),
        option('innodb_change_buffering', 'deprecated'),
        option('innodb_change_buffer_max_size', 'refused', "unknown variable 'innodb-change-buffer-max-size=30'"),
      ],
      account_findings: [
        account('mysql_native_password', 'available', ["'legacy'@'%'"]),
        account('sha256_password', 'missing', ["'old'@'%'", "'older'@'%'"]),
      ],
    })
    expect(groups.map((g) => g.key)).toEqual(['does-not-start', 'locks-out', 'warns', 'not-tried', 'same'])
    const refused = groups[0].findings[0]
    expect(refused.kind === 'option' && refused.finding.words).toContain('unknown variable')
    expect(groups[4].findings.map((f) => f.kind)).toEqual(['option', 'account'])
  })

  it('keeps an outcome it does not know in a group of its own, before the harmless ones', () => {
    const groups = findingGroups({
      findings: [option('a', 'accepted'), option('b', 'changed_default', 'latin1 -> utf8mb4')],
      account_findings: [account('x', 'disabled', ["'u'@'%'"])],
    })
    expect(groups.map((g) => g.key)).toEqual(['option-changed_default', 'account-disabled', 'same'])
    expect(groups[0].title).toBe('Setting: changed_default')
  })

  it('groups ignored settings and anonymous accounts with the severe ones, implied settings and roles with the quiet', () => {
    const groups = findingGroups({
      findings: [option('alter_algorithm', 'implied'), option('innodb_defragment', 'no_effect'), option('a', 'accepted')],
      account_findings: [account('', 'no_login', ["'PUBLIC'@''"]), account('', 'anonymous', ["''@'%'"])],
    })
    expect(groups.map((g) => g.key)).toEqual(['no-effect', 'anonymous', 'implied', 'no-login', 'same'])
    expect(checkHeadline(groups)).toBe('Taken and ignored: 1 setting · Anonymous accounts: 1 account')
  })

  it('reads a check without findings yet (queued, failed) as no groups', () => {
    expect(findingGroups({ findings: null, account_findings: null })).toEqual([])
  })
})

describe('checkHeadline', () => {
  it('counts settings and locked-out accounts per severe group', () => {
    const groups = findingGroups({
      findings: [option('a', 'refused'), option('b', 'refused'), option('c', 'accepted')],
      account_findings: [account('sha256_password', 'missing', ["'u'@'%'", "'v'@'%'"])],
    })
    expect(checkHeadline(groups)).toBe('Does not start: 2 settings · Locks users out: 2 accounts')
  })

  it('leaves the settings not tried out of the verdict and counts them after it', () => {
    const groups = findingGroups({ findings: [option('port', 'not_tried'), option('a', 'deprecated')], account_findings: [] })
    expect(checkHeadline(groups)).toBe('Starts with a warning: 1 setting (1 setting not tried)')
  })

  it('says nothing is refused when every setting is taken', () => {
    expect(checkHeadline(findingGroups({ findings: [option('a', 'accepted')], account_findings: [] }))).toBe(
      'Nothing refused, no account locked out',
    )
  })
})
