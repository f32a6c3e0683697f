import type { ScheduleKind } from '../../api/models'

export interface ScheduleState {
  schedule: ScheduleKind
  /** Text of the rounds input ('' = from iterations: 5 to 10 rounds when they divide it). */
  rounds: string
  /** Text of the block input ('' = iterations / rounds). */
  block: string
  aaControl: boolean
}

// Rounds blank: the server picks rounds x block = iterations (100 -> 10 x 10, 6 -> 6 x 1).
export const initialSchedule: ScheduleState = { schedule: 'interleaved', rounds: '', block: '', aaControl: false }

/** A whole number >= 1 from an input's text, undefined when empty; the field's error otherwise. */
export function positiveInt(field: string, text: string): number | undefined | string {
  if (text.trim() === '') return undefined
  const n = Number(text)
  return Number.isInteger(n) && n >= 1 ? n : `${field}: must be a whole number of at least 1`
}

interface Props {
  value: ScheduleState
  onChange: (patch: Partial<ScheduleState>) => void
}

/** Schedule (interleaved rounds or sequential), rounds, block size and the A/A control switch. */
export function ScheduleFields({ value, onChange }: Props) {
  const interleaved = value.schedule === 'interleaved'
  return (
    <div className="field-row" data-testid="schedule-fields">
      <div className="field">
        <label htmlFor="schedule-select">Schedule</label>
        <select
          id="schedule-select"
          data-testid="schedule-select"
          value={value.schedule}
          onChange={(e) => onChange({ schedule: e.target.value as ScheduleKind })}
        >
          <option value="interleaved" title="Every round runs each variant once, in a shuffled order">
            interleaved rounds
          </option>
          <option value="sequential" title="Each variant runs all its iterations, one after another">
            sequential
          </option>
        </select>
      </div>
      {interleaved && (
        <>
          <div className="field">
            <label htmlFor="rounds-input">
              Rounds <span className="muted">(blank: from iterations)</span>
            </label>
            <input
              id="rounds-input"
              data-testid="rounds-input"
              type="number"
              min={1}
              step={1}
              value={value.rounds}
              title="A verdict needs at least 5 rounds"
              onChange={(e) => onChange({ rounds: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="block-input">
              Block <span className="muted">(iterations; blank: iterations / rounds)</span>
            </label>
            <input
              id="block-input"
              data-testid="block-input"
              type="number"
              min={1}
              step={1}
              value={value.block}
              onChange={(e) => onChange({ block: e.target.value })}
            />
          </div>
        </>
      )}
      <div className="field">
        <label htmlFor="aa-control">
          <input
            id="aa-control"
            data-testid="aa-control"
            type="checkbox"
            checked={value.aaControl}
            onChange={(e) => onChange({ aaControl: e.target.checked })}
          />{' '}
          A/A control <span className="muted">(a second instance of the first variant: the noise floor)</span>
        </label>
      </div>
    </div>
  )
}
