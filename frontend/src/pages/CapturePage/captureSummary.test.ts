import { describe, expect, it } from 'vitest'
import type { CaptureRead } from '../../client'
import { captureSummary } from './captureSummary'

const variable = (name: string, comparison: string) => ({ name, value: '1', default: '1', comparison })
const CAPTURE = {
  configuration: {
    flavor: 'mariadb', version: '10.11.19-MariaDB',
    variables: [variable('a', 'differs'), variable('b', 'default'), variable('c', 'unknown')],
  },
  workload: { digests: [{}, {}], executions: 50800, replayable: 1 },
  accounts: [{ user: 'u', host: '%', plugin: 'p' }],
  accounts_error: null,
  dump: { dataset: 'capture-7', error: null },
} as unknown as CaptureRead // prettier-ignore

describe('captureSummary', () => {
  it('counts what the capture read, each part naming the section that shows it whole', () => {
    expect(captureSummary(CAPTURE)).toEqual([
      { text: 'mariadb 10.11.19-MariaDB: 1 of 3 variables differ from the default', section: 'capture-configuration' },
      { text: '2 statement digests (50,800 executions, 1 replayable)', section: 'capture-workload' },
      { text: '1 account', section: 'capture-accounts' },
      { text: 'dataset capture-7', section: 'capture-dump-section' },
    ])
  })

  it('says what could not be read, and leaves out what a running capture has not read yet', () => {
    const partial = {
      ...CAPTURE, configuration: null, workload: null, accounts: null, accounts_error: 'denied',
      dump: { dataset: null, error: 'no database' },
    } as unknown as CaptureRead // prettier-ignore
    expect(captureSummary(partial).map((p) => p.text)).toEqual(['accounts not read', 'no dataset'])
    expect(captureSummary({ ...partial, accounts_error: null, dump: null } as CaptureRead)).toEqual([])
  })
})
