import { useEffect } from 'react'
import { useParams } from 'react-router-dom'
import { concurrentReplaysApi } from '../../api/concurrentReplays'
import { JobPage, jobControls, type JobControlsOf } from '../../components/JobPage/JobPage'
import { useJob } from '../../components/JobPage/JobPage'
import { concurrentReplayQuery } from '../../queries/concurrentReplays'
import { ConcurrentReplayView } from './ConcurrentReplayView'

/** A concurrent replay's cancel, exports and share link (its token shown once). */
const CONTROLS: JobControlsOf = {
  testId: 'concurrent',
  apiPath: '/api/concurrent-replays',
  cancel: concurrentReplaysApi.cancel,
  share: async (id) => {
    const token = (await concurrentReplaysApi.share(id)).share_token
    return token ? `/api/public/concurrent-replays/${token}` : null
  },
}

/** /concurrent-replays/:id: a log's sessions replayed together on identical copies of a dataset,
 * trial after trial; its answer first (breaks, slower, faster per variant), then its verdicts and
 * trials. While it runs, its events (GET /api/concurrent-replays/{id}/events) move the progress, and
 * a progress that counts more trials than the page holds refetches it. */
export function ConcurrentReplayPage() {
  const { id = '' } = useParams()
  const { found, live, refresh } = useJob(concurrentReplayQuery(Number(id)), `/api/concurrent-replays/${id}/events`)
  const lags = found.data !== undefined && (found.data.progress?.trials_done ?? 0) > found.data.trials.length
  const progressKey = JSON.stringify(found.data?.progress ?? null)
  useEffect(() => {
    if (lags) refresh()
  }, [lags, progressKey, refresh])
  return (
    <JobPage found={found} noun="concurrent replay">
      {(data) => <ConcurrentReplayView job={data} {...jobControls(CONTROLS, data, live, refresh)} />}
    </JobPage>
  )
}
