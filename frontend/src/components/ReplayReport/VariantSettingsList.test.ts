import { describe, expect, it } from 'vitest'
import { toVariantSpec } from '../VariantRow/variants'
import { settingsParts } from './VariantSettingsList'

describe("a replay variant's settings", () => {
  it('the form sends a row as the API variant spec, and the page says what it set', () => {
    const spec = toVariantSpec({
      key: 2,
      target: 'mariadb-11.8',
      preset: 'default',
      name: '11.8 tuned',
      optionsText: 'max_connections=77\nskip-log-bin',
      setSessionText: 'div_precision_increment=7',
    })
    expect(spec).toEqual({
      target: 'mariadb-11.8',
      preset: 'default',
      name: '11.8 tuned',
      options: { max_connections: '77', 'skip-log-bin': null },
      set_session: { div_precision_increment: '7' },
    })
    const stored = {
      name: '11.8 tuned',
      options: ['max-connections=77', 'skip-log-bin'],
      set_global: {},
      set_session: { div_precision_increment: '7' },
      instance: [],
    }
    expect(settingsParts(stored)).toEqual([
      'options max-connections=77, skip-log-bin',
      'SET SESSION div_precision_increment=7',
    ])
    expect(settingsParts({ ...stored, options: [], set_session: {} })).toEqual([])
  })
})
