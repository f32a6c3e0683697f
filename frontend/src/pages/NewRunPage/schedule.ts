import type { ScheduleKind } from '../../api/models'
import type { ExperimentCreate } from '../../client'

/** The schedule part of the new-run form, as the inputs' texts. */
export interface ScheduleState {
  schedule: ScheduleKind
  /** Text of the rounds input ('' = from iterations: 5 to 10 rounds when they divide it). */
  rounds: string
  /** Text of the block input ('' = iterations / rounds). */
  block: string
  aaControl: boolean
  /** Auto-extension: rounds in all at most ('' = off). */
  maxRounds: string
  /** Auto-extension time budget in minutes since the first block ('' = no time limit). */
  maxMinutes: string
}

// Rounds blank: the server picks rounds x block = iterations (100 -> 10 x 10, 6 -> 6 x 1).
export const initialSchedule: ScheduleState = {
  schedule: 'interleaved',
  rounds: '',
  block: '',
  aaControl: false,
  maxRounds: '',
  maxMinutes: '',
}

/** The body fields the schedule inputs give (ExperimentCreate's schedule, rounds, block, aa_control,
 * max_rounds, max_minutes); absent fields are left to the server's defaults. */
export type ScheduleBody = Pick<
  ExperimentCreate,
  'schedule' | 'aa_control' | 'rounds' | 'block' | 'max_rounds' | 'max_minutes'
>

// Mirrors the API's bounds (experiments/schemas.py): max_rounds <= 1000, max_minutes <= one day.
const MAX_ROUNDS = 1000
const MAX_MINUTES = 24 * 60

/** A whole number >= 1 from an input's text, undefined when empty; the field's error otherwise. */
export function positiveInt(field: string, text: string): number | undefined | string {
  if (text.trim() === '') return undefined
  const n = Number(text)
  return Number.isInteger(n) && n >= 1 ? n : `${field}: must be a whole number of at least 1`
}

/** The schedule inputs as body fields, or the first problem as "<field>: <reason>" (the API's names).
 * Sequential runs send no rounds, block or auto-extension. */
export function scheduleBody(state: ScheduleState): ScheduleBody | string {
  const body: ScheduleBody = { schedule: state.schedule, aa_control: state.aaControl }
  if (state.schedule !== 'interleaved') return body
  const rounds = positiveInt('rounds', state.rounds)
  const block = positiveInt('block', state.block)
  const maxRounds = positiveInt('max_rounds', state.maxRounds)
  for (const value of [rounds, block, maxRounds]) if (typeof value === 'string') return value
  if (typeof maxRounds === 'number') {
    if (maxRounds > MAX_ROUNDS) return `max_rounds: at most ${MAX_ROUNDS}`
    if (typeof rounds === 'number' && maxRounds < rounds)
      return `max_rounds: must be at least the rounds (${rounds})`
  }
  const minutesText = state.maxMinutes.trim()
  if (minutesText !== '') {
    const minutes = Number(minutesText)
    if (!Number.isFinite(minutes) || minutes <= 0 || minutes > MAX_MINUTES)
      return `max_minutes: must be a number of minutes above 0 and at most ${MAX_MINUTES}`
    if (maxRounds === undefined) return 'max_minutes: needs max_rounds (the auto-extension is off without it)'
    body.max_minutes = minutes
  }
  if (typeof rounds === 'number') body.rounds = rounds
  if (typeof block === 'number') body.block = block
  if (typeof maxRounds === 'number') body.max_rounds = maxRounds
  return body
}
