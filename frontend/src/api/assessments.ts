// Assessments (one upgrade report: a team's server checked, replayed and remedied against new
// versions, backend assessment/): the calls, over the generated client. Every shape is the generated
// client's (src/client/types.gen.ts: AssessmentRead, AssessmentReport, TodoItem).
import * as sdk from '../client/sdk.gen'
import type { AssessmentCreate } from '../client'
import { unwrap } from './client'

export const assessmentsApi = {
  create: (body: AssessmentCreate) => unwrap(sdk.createAssessment({ body })),
  get: (id: number) => unwrap(sdk.getAssessment({ path: { assessment_id: id } })),
  cancel: (id: number) => unwrap(sdk.cancelAssessment({ path: { assessment_id: id } })),
  share: (id: number) => unwrap(sdk.shareAssessment({ path: { assessment_id: id } })),
  /** Read-only, without sign-in (a share link). */
  shared: (token: string) => unwrap(sdk.sharedAssessment({ path: { token } })),
}

/** The UI address of a share link (App.tsx's public routes). */
export const assessmentSharePath = (token: string) => `/share/assessments/${token}`
