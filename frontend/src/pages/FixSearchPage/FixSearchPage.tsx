import { useEffect } from 'react'
import { useParams } from 'react-router-dom'
import { fixSearchesApi, fixSearchSharePath } from '../../api/fixsearches'
import { JobPage, jobControls, sharedAt, useJob, type JobControlsOf } from '../../components/JobPage/JobPage'
import { fixSearchQuery } from '../../queries/fixsearches'
import { FixSearchView } from './FixSearchView'
import { lagsProgress } from './rows'

/** A fix search's cancel, exports and share link (the read-only view at /share/fixsearches/:token). */
const CONTROLS: JobControlsOf = {
  testId: 'fix',
  apiPath: '/api/fixsearches',
  cancel: fixSearchesApi.cancel,
  share: (id) => sharedAt(fixSearchesApi.share(id), fixSearchSharePath),
}

/** /fixsearches/:id: a remedy for a replay's fingerprint, candidate by candidate; its cancel and share
 * link (the read-only view at /share/fixsearches/:token). While it runs, its events (GET
 * /api/fixsearches/{id}/events: status and progress) move the progress; a progress that counts more
 * trials than the page holds refetches the search (the trials come with the GET, not the event). */
export function FixSearchPage() {
  const { id = '' } = useParams()
  const { found, live, refresh } = useJob(fixSearchQuery(Number(id)), `/api/fixsearches/${id}/events`)
  const lags = found.data !== undefined && lagsProgress(found.data)
  const progressKey = JSON.stringify(found.data?.progress ?? null)
  useEffect(() => {
    // once per progress the stream brings (the key by value, not a new array each render): a refetch
    // that still lags does not ask again
    if (lags) refresh()
  }, [lags, progressKey, refresh])
  return (
    <JobPage found={found} noun="fix search">
      {(data) => <FixSearchView search={data} linkReplay {...jobControls(CONTROLS, data, live, refresh)} />}
    </JobPage>
  )
}
