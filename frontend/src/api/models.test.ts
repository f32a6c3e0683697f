import { describe, expect, it } from 'vitest'
import { RunStatus } from '../client'
import { FINAL_STATUSES, isFinal } from './models'

describe('final run statuses', () => {
  it("are the backend's FinalRunStatus, read from the generated client", () => {
    expect([...FINAL_STATUSES].sort()).toEqual(['cancelled', 'failed', 'succeeded'])
    expect(Object.values(RunStatus).filter(isFinal)).toEqual(['succeeded', 'failed', 'cancelled'])
    expect(isFinal('running')).toBe(false)
  })
})
