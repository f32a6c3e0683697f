import type { ScheduleKind } from '../../api/models'
import type { ScheduleState } from './schedule'

interface Props {
  value: ScheduleState
  onChange: (patch: Partial<ScheduleState>) => void
}

/** Schedule (interleaved rounds or sequential), rounds, block size, the auto-extension budget and the A/A
 * control switch. */
export function ScheduleFields({ value, onChange }: Props) {
  const interleaved = value.schedule === 'interleaved'
  return (
    <div className="schedule-fields" data-testid="schedule-fields">
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
          <div className="field">
            <label htmlFor="max-rounds-input">
              Extend to rounds <span className="muted">(blank: no auto-extension)</span>
            </label>
            <input
              id="max-rounds-input"
              data-testid="max-rounds-input"
              type="number"
              min={1}
              step={1}
              value={value.maxRounds}
              title="While a verdict is inconclusive, rounds are added 5 at a time up to this many in all"
              onChange={(e) => onChange({ maxRounds: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="max-minutes-input">
              Extension budget <span className="muted">(minutes; blank: no limit)</span>
            </label>
            <input
              id="max-minutes-input"
              data-testid="max-minutes-input"
              type="number"
              min={0}
              step="any"
              value={value.maxMinutes}
              title="No round is added once this many minutes have passed since the first block"
              onChange={(e) => onChange({ maxMinutes: e.target.value })}
            />
          </div>
        </>
      )}
      <div className="field whole-row">
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
