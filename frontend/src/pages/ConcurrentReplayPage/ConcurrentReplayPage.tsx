import { useEffect } from 'react'
import { useParams } from 'react-router-dom'
import { concurrentReplaySharePath, concurrentReplaysApi } from '../../api/concurrentReplays'
import { JobPage, jobControls, sharedAt, type JobControlsOf } from '../../components/JobPage/JobPage'
import { useJob } from '../../components/JobPage/JobPage'
import { SharedExport } from '../../components/JobPage/JobTools'
import { SharedPage } from '../../components/JobPage/SharedPage'
import { concurrentReplayQuery, sharedConcurrentReplayQuery } from '../../queries/concurrentReplays'
import { ConcurrentReplayView } from './ConcurrentReplayView'

/** A concurrent replay's cancel, exports and share link (the read-only view at
 * /share/concurrent-replays/:token, shown once). */
const CONTROLS: JobControlsOf = {
  testId: 'concurrent',
  apiPath: '/api/concurrent-replays',
  cancel: concurrentReplaysApi.cancel,
  share: (id) => sharedAt(concurrentReplaysApi.share(id), concurrentReplaySharePath),
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

/** /share/concurrent-replays/:token: a concurrent replay read-only, without signing in: the same
 * answer, breaks, verdicts and trials, its exports (no cancel or share: those need a sign-in). */
export function ConcurrentReplaySharePage() {
  return (
    <SharedPage query={sharedConcurrentReplayQuery}>
      {(data, token) => (
        <ConcurrentReplayView job={data} tools={<SharedExport kind="concurrent-replays" token={token} testId="concurrent" />} />
      )}
    </SharedPage>
  )
}
