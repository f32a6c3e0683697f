import { describe, expect, it } from 'vitest'
import { JobStatus } from '../client'
import { FINAL_STATUSES, isFinal } from './models'

describe('final run statuses', () => {
  it("are the backend's FinalJobStatus, read from the generated client", () => {
    expect([...FINAL_STATUSES].sort()).toEqual(['cancelled', 'failed', 'succeeded'])
    expect(Object.values(JobStatus).filter(isFinal)).toEqual(['succeeded', 'failed', 'cancelled'])
    expect(isFinal('running')).toBe(false)
  })
})
