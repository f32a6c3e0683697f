// How a share link's page follows a job that is still running: no sign-in, so no stream (api/streaming.py
// opens none to a token); it reads the job again until its status is final.
import { ApiError } from '../api/client'
import { isFinal } from '../api/models'
import type { JobStatus } from '../client'

/** A shared job's refetchInterval: every `ms` milliseconds while it runs; none once it succeeded,
 * failed or was cancelled, nor after a 4xx (an unknown or revoked link does not appear by asking
 * again; a network error or a 5xx may pass, so those are asked again). */
export function untilFinal(ms: number) {
  return (query: { state: { data?: { status: JobStatus }; error: unknown } }): number | false => {
    const { data, error } = query.state
    if (!data) return error instanceof ApiError && error.status < 500 ? false : ms
    return isFinal(data.status) ? false : ms
  }
}
