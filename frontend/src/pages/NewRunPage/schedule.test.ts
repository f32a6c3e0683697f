import { describe, expect, it } from 'vitest'
import { initialSchedule, scheduleBody, type ScheduleState } from './schedule'

const state = (patch: Partial<ScheduleState>): ScheduleState => ({ ...initialSchedule, ...patch })

describe('schedule fields from the form', () => {
  it('leaves blank rounds, block and auto-extension to the server', () => {
    expect(scheduleBody(state({}))).toEqual({ schedule: 'interleaved', aa_control: false })
  })

  it('sends rounds, block and the auto-extension budget of an interleaved run', () => {
    const body = scheduleBody(state({ rounds: '10', block: '5', maxRounds: '30', maxMinutes: '4.5', aaControl: true }))
    expect(body).toEqual({
      schedule: 'interleaved',
      aa_control: true,
      rounds: 10,
      block: 5,
      max_rounds: 30,
      max_minutes: 4.5,
    })
  })

  it('sends no rounds, block or extension for a sequential run', () => {
    const body = scheduleBody(state({ schedule: 'sequential', rounds: 'x', maxRounds: '3', maxMinutes: '-1' }))
    expect(body).toEqual({ schedule: 'sequential', aa_control: false })
  })

  it('names the field and the reason of a bad value', () => {
    expect(scheduleBody(state({ rounds: '2.5' }))).toBe('rounds: must be a whole number of at least 1')
    expect(scheduleBody(state({ maxRounds: '0' }))).toBe('max_rounds: must be a whole number of at least 1')
    expect(scheduleBody(state({ rounds: '10', maxRounds: '8' }))).toBe(
      'max_rounds: must be at least the rounds (10)',
    )
    expect(scheduleBody(state({ maxRounds: '5000' }))).toBe('max_rounds: at most 1000')
    expect(scheduleBody(state({ maxRounds: '20', maxMinutes: '0' }))).toMatch(/^max_minutes: must be a number/)
    expect(scheduleBody(state({ maxRounds: '20', maxMinutes: 'soon' }))).toMatch(/^max_minutes: /)
    expect(scheduleBody(state({ maxMinutes: '3' }))).toBe(
      'max_minutes: needs max_rounds (the auto-extension is off without it)',
    )
  })
})
