import { describe, expect, it } from 'vitest'
import { fieldSpecs, fromText, parametersFrom, type ParametersSchema } from './parameters'
import { flavorWarning, parseOptions, presetChoices, toVariantSpec } from '../../components/VariantRow/variants'

// pydantic's JSON schema for a template's parameters (count-star's shape).
const SCHEMA: ParametersSchema = {
  properties: {
    rows: { type: 'integer', title: 'Rows', default: 81920 },
    tables: { type: 'array', items: { type: 'string' }, title: 'Tables' },
    threads: { type: 'array', items: { type: 'integer' } },
    note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    mode: { $ref: '#/$defs/Mode' },
  },
  $defs: { Mode: { enum: ['fast', 'slow'], type: 'string' } },
}

describe('template parameters from the form', () => {
  const specs = fieldSpecs(SCHEMA)
  const spec = (name: string) => specs.find((s) => s.name === name)!

  it('reads kinds, nullability and choices from the schema, through $ref', () => {
    expect(spec('rows')).toMatchObject({ kind: 'integer', label: 'Rows', nullable: false })
    expect(spec('note')).toMatchObject({ kind: 'string', nullable: true })
    expect(spec('mode').choices).toEqual(['fast', 'slow'])
    expect(spec('threads').itemKind).toBe('integer')
  })

  it('turns texts into JSON values: numbers, comma lists, null for an empty nullable', () => {
    const body = parametersFrom(specs, { rows: ' 20480 ', tables: 'a, b,', threads: '1, 4,16', note: '' })
    expect(body).toEqual({ rows: 20480, tables: ['a', 'b'], threads: [1, 4, 16], note: null })
  })

  it("leaves an empty required number to the server's default", () => {
    expect(fromText(spec('rows'), '  ')).toBeUndefined()
    expect(parametersFrom(specs, { rows: '' })).toEqual({})
  })
})

describe('variants from the form', () => {
  it('parses option lines: name=value, a bare name as null, blanks ignored', () => {
    expect(parseOptions('innodb_flush_log_at_trx_commit = 2\n\nskip-log-bin\r\nsql_mode=')).toEqual({
      innodb_flush_log_at_trx_commit: '2',
      'skip-log-bin': null,
      sql_mode: '',
    })
  })

  it('sends only what was given, and SET lines without = with an empty value for the server to name', () => {
    const spec = toVariantSpec({
      key: 1,
      target: 'mysql-9.7',
      preset: '',
      name: '  ',
      optionsText: '',
      setGlobalText: 'innodb_io_capacity=2000\nbogus',
      instanceText: '\nALTER INSTANCE DISABLE INNODB REDO_LOG\n',
    })
    expect(spec).toEqual({
      target: 'mysql-9.7',
      preset: 'default',
      set_global: { innodb_io_capacity: '2000', bogus: '' },
      instance: ['ALTER INSTANCE DISABLE INNODB REDO_LOG'],
    })
  })

  it('warns when a preset does not exist for the target flavor, combinations included', () => {
    const choices = presetChoices([
      { name: 'redo-off', description: 'redo log off', flavors: ['mysql'] },
      { name: 'skip-log-bin', description: 'no binlog', flavors: ['mysql', 'mariadb'] },
    ])
    const combo = choices.find((c) => c.name === 'redo-off+skip-log-bin')
    expect(combo?.flavors).toEqual(['mysql'])
    const mariadb = { id: 2, name: 'mariadb-10.11', flavor: 'mariadb', version: null, provisioner: 'local' } as const
    expect(flavorWarning(combo, mariadb)).toBe(
      'Preset "redo-off+skip-log-bin" is for mysql only; mariadb-10.11 is mariadb.',
    )
    expect(flavorWarning(choices[1], mariadb)).toBeNull()
  })
})
