import { useParams } from 'react-router-dom'
import { assessmentSharePath, assessmentsApi } from '../../api/assessments'
import { JobPage, jobControls, sharedAt, useJob, type JobControlsOf } from '../../components/JobPage/JobPage'
import { SharedExport } from '../../components/JobPage/JobTools'
import { SharedPage } from '../../components/JobPage/SharedPage'
import { assessmentQuery, sharedAssessmentQuery } from '../../queries/assessments'
import { AssessmentView } from './AssessmentView'

/** An assessment's cancel, exports and share link (the read-only view at /share/assessments/:token). */
const CONTROLS: JobControlsOf = {
  testId: 'assessment',
  apiPath: '/api/assessments',
  cancel: assessmentsApi.cancel,
  share: (id) => sharedAt(assessmentsApi.share(id), assessmentSharePath),
}

/** /assessments/:id: one upgrade report; while it runs its events (GET /api/assessments/{id}/events)
 * move its status and progress, and its report is read live from its children. */
export function AssessmentPage() {
  const { id = '' } = useParams()
  const { found, live, refresh } = useJob(assessmentQuery(Number(id)), `/api/assessments/${id}/events`)
  return (
    <JobPage found={found} noun="assessment" testId="assessment-page">
      {(data) => (
        <AssessmentView
          assessment={data}
          documents={{ md: `/api/assessments/${data.id}/report.md`, pdf: `/api/assessments/${data.id}/report.pdf` }}
          {...jobControls(CONTROLS, data, live, refresh)}
        />
      )}
    </JobPage>
  )
}

/** /share/assessments/:token: an assessment read-only, without signing in (its exports and PDF). */
export function AssessmentSharePage() {
  return (
    <SharedPage query={sharedAssessmentQuery}>
      {(data, token) => (
        <AssessmentView
          assessment={data}
          documents={{ pdf: `/api/public/assessments/${encodeURIComponent(token)}/report.pdf` }}
          tools={<SharedExport kind="assessments" token={token} testId="assessment" />}
        />
      )}
    </SharedPage>
  )
}
