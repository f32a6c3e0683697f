import type { FieldSpec } from './parameters'

interface Props {
  specs: FieldSpec[]
  texts: Record<string, string>
  onChange: (name: string, text: string) => void
}

/** The selected template's parameter fields, rendered from its JSON schema. */
export function ParameterFields({ specs, texts, onChange }: Props) {
  if (specs.length === 0) return <p className="muted">This template has no parameters.</p>
  return (
    <div className="parameter-fields" data-testid="parameter-fields">
      {specs.map((spec) => {
        const id = `param-${spec.name}`
        const value = texts[spec.name] ?? ''
        let input
        if (spec.kind === 'boolean') {
          input = (
            <input
              id={id}
              data-testid={id}
              type="checkbox"
              checked={value === 'true'}
              onChange={(e) => onChange(spec.name, e.target.checked ? 'true' : 'false')}
            />
          )
        } else if (spec.choices) {
          input = (
            <select id={id} data-testid={id} value={value} onChange={(e) => onChange(spec.name, e.target.value)}>
              {spec.nullable && <option value="">(none)</option>}
              {spec.choices.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          )
        } else if (spec.multiline) {
          input = (
            <textarea
              id={id}
              data-testid={id}
              rows={4}
              value={value}
              onChange={(e) => onChange(spec.name, e.target.value)}
            />
          )
        } else {
          input = (
            <input
              id={id}
              data-testid={id}
              type={spec.kind === 'integer' || spec.kind === 'number' ? 'number' : 'text'}
              value={value}
              placeholder={spec.kind === 'array' ? 'comma-separated' : spec.nullable ? '(none)' : ''}
              onChange={(e) => onChange(spec.name, e.target.value)}
            />
          )
        }
        return (
          <div className="field" key={spec.name}>
            <label htmlFor={id}>{spec.label}</label>
            {input}
            {spec.description && <div className="muted small">{spec.description}</div>}
          </div>
        )
      })}
    </div>
  )
}
