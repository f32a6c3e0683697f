// Template parameters <-> form text, driven by the template's JSON schema (pydantic's output).

// The API types parameters_schema as a free-form object (it is each template's pydantic JSON schema);
// these are the parts of a JSON schema the form reads.
/** A JSON schema property as pydantic writes it (the subset the parameter form reads). */
export interface SchemaProperty {
  type?: string
  title?: string
  description?: string
  default?: unknown
  enum?: unknown[]
  items?: SchemaProperty
  anyOf?: SchemaProperty[]
  minimum?: number
  maximum?: number
  $ref?: string
}

export interface ParametersSchema {
  properties?: Record<string, SchemaProperty>
  required?: string[]
  $defs?: Record<string, SchemaProperty>
}

export interface FieldSpec {
  name: string
  label: string
  description: string
  /** integer | number | boolean | string | array */
  kind: string
  /** For arrays: the item kind. */
  itemKind: string
  nullable: boolean
  choices: string[] | null
  multiline: boolean
}

function resolve(schema: ParametersSchema, prop: SchemaProperty): SchemaProperty {
  if (prop.$ref) {
    const name = prop.$ref.split('/').pop() ?? ''
    return { ...(schema.$defs?.[name] ?? {}), ...prop, $ref: undefined }
  }
  return prop
}

/** One FieldSpec per schema property, in the schema's order. */
export function fieldSpecs(schema: ParametersSchema): FieldSpec[] {
  return Object.entries(schema.properties ?? {}).map(([name, raw]) => {
    const options = raw.anyOf ?? [raw]
    const nullable = options.some((o) => o.type === 'null')
    const main = resolve(schema, options.find((o) => o.type !== 'null') ?? raw)
    const items = main.items ? resolve(schema, main.items) : undefined
    const choices = main.enum ? main.enum.map(String) : null
    return {
      name,
      label: raw.title ?? name,
      description: raw.description ?? main.description ?? '',
      kind: main.type ?? (choices ? 'string' : 'string'),
      itemKind: items?.type ?? 'string',
      nullable,
      choices,
      multiline: name.endsWith('_sql'),
    }
  })
}

/** Form text of a parameter value (lists comma-separated, null as ''). */
export function toText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (Array.isArray(value)) return value.map(String).join(', ')
  return String(value)
}

/** Form text -> JSON value; `undefined` leaves the parameter to the server's default. */
export function fromText(spec: FieldSpec, text: string): unknown {
  const trimmed = text.trim()
  if (spec.kind === 'boolean') return text === 'true'
  if (trimmed === '' && spec.kind !== 'string') return spec.nullable ? null : undefined
  if (spec.kind === 'integer' || spec.kind === 'number') return Number(trimmed)
  if (spec.kind === 'array') {
    const parts = trimmed === '' ? [] : trimmed.split(',').map((p) => p.trim()).filter(Boolean)
    return spec.itemKind === 'integer' || spec.itemKind === 'number' ? parts.map(Number) : parts
  }
  if (trimmed === '' && spec.nullable && !spec.multiline) return null
  return text
}

/** The parameters object to send, from the form's texts. */
export function parametersFrom(specs: FieldSpec[], texts: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const spec of specs) {
    if (!(spec.name in texts)) continue
    const value = fromText(spec, texts[spec.name])
    if (value !== undefined) out[spec.name] = value
  }
  return out
}

/** Initial texts from the template's defaults. */
export function defaultTexts(defaults: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(defaults).map(([k, v]) => [k, toText(v)]))
}
