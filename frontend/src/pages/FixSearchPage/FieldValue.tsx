import type { VerdictRead } from '../../client'
import { Ratio } from '../../components/Ratio/Ratio'

type Plain = Record<string, unknown>

const isPlain = (value: unknown): value is Plain => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A ratio with its interval, whatever field holds it (VerdictRead's keys): shown as every ratio is. */
function isVerdict(value: unknown): value is VerdictRead {
  return isPlain(value) && ['ratio', 'low', 'high', 'verdict'].every((key) => key in value)
}

/** A value of a field this page does not know by name (rows.ts otherFields: what a newer API adds to
 * a candidate or a trial, such as a global remedy's side effects or the plans before and after):
 * a ratio as a Ratio, a list of records as a table (one column per key), a record as a list of its
 * fields, anything else as text. Nothing restated of the shape: it is read as it comes. */
export function FieldValue({ value }: { value: unknown }) {
  if (value == null) return <span className="muted">-</span>
  if (isVerdict(value)) return <Ratio value={value} withVerdict withRounds />
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every(isPlain)) {
      const keys = [...new Set(value.flatMap((row) => Object.keys(row)))]
      return (
        <table className="table plan">
          <thead>
            <tr>
              {keys.map((key) => (
                <th key={key}>{key.replaceAll('_', ' ')}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {value.map((row, i) => (
              <tr key={i}>
                {keys.map((key) => (
                  <td key={key}>
                    <FieldValue value={row[key]} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )
    }
    return <>{value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ')}</>
  }
  if (isPlain(value)) return <Fields fields={Object.entries(value)} />
  if (typeof value === 'boolean') return <>{value ? 'yes' : 'no'}</>
  return <>{String(value)}</>
}

/** [name, value] pairs as a definition list, each value through FieldValue. */
export function Fields({ fields, testId }: { fields: [string, unknown][]; testId?: string }) {
  return (
    <dl data-testid={testId}>
      {fields.map(([key, value]) => (
        <div key={key} data-field={key}>
          <dt>{key.replaceAll('_', ' ')}</dt>
          <dd>
            <FieldValue value={value} />
          </dd>
        </div>
      ))}
    </dl>
  )
}
