import { useParams } from 'react-router-dom'
import { attributionSharePath, attributionsApi } from '../../api/attributions'
import { AttributionView } from '../../components/attribution/AttributionView'
import { JobPage, jobControls, sharedAt, useJob, type JobControlsOf } from '../../components/JobPage/JobPage'
import { attributionQuery } from '../../queries/attributions'

/** An attribution's cancel, exports and share link (the read-only view at /share/attributions/:token). */
const CONTROLS: JobControlsOf = {
  testId: 'attribution',
  apiPath: '/api/attributions',
  cancel: attributionsApi.cancel,
  share: (id) => sharedAt(attributionsApi.share(id), attributionSharePath),
}

/** /attributions/:id: which changed settings explain a variant's gap, step by step, with the result; its
 * cancel, exports and share link. While it runs, its events (GET /api/attributions/{id}/events: each
 * step run started or measured) refetch it. */
export function AttributionPage() {
  const { id = '' } = useParams()
  const { found, live, refresh } = useJob(attributionQuery(Number(id)), `/api/attributions/${id}/events`)
  return (
    <JobPage found={found} noun="attribution">
      {(data) => <AttributionView attribution={data} linkRuns {...jobControls(CONTROLS, data, live, refresh)} />}
    </JobPage>
  )
}
