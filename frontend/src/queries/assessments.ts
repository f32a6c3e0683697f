// Query options of the assessments: one by id (signed in; its page follows the assessment's stream)
// and one by its share link (no sign-in: polled every 2 s until it reaches a final status).
import { queryOptions } from '@tanstack/react-query'
import { assessmentsApi } from '../api/assessments'
import { untilFinal } from './sharedPolling'

const POLL_MS = 2000

/** Assessment `id` with its children and report (GET /api/assessments/{id}; live while it runs). */
export function assessmentQuery(id: number) {
  return queryOptions({ queryKey: ['assessment', id] as const, queryFn: () => assessmentsApi.get(id) })
}

/** The assessment shared under `token`, read-only (GET /api/public/assessments/{token}). */
export function sharedAssessmentQuery(token: string) {
  return queryOptions({
    queryKey: ['shared-assessment', token] as const,
    queryFn: () => assessmentsApi.shared(token),
    refetchInterval: untilFinal(POLL_MS),
  })
}
