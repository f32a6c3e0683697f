import { useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { useParams } from 'react-router-dom'
import { fixSearchesApi, fixSearchSharePath } from '../../api/fixsearches'
import { CancelButton } from '../../components/JobPage/CancelButton'
import { JobPage, useJob } from '../../components/JobPage/JobPage'
import { JobTools } from '../../components/JobPage/JobTools'
import { fixSearchQuery } from '../../queries/fixsearches'
import { FixSearchView } from './FixSearchView'
import { lagsProgress } from './rows'

/** /fixsearches/:id: a remedy for a replay's fingerprint, candidate by candidate; its cancel and share
 * link (the read-only view at /share/fixsearches/:token). While it runs, its events (GET
 * /api/fixsearches/{id}/events: status and progress) move the progress; a progress that counts more
 * trials than the page holds refetches the search (the trials come with the GET, not the event). */
export function FixSearchPage() {
  const { id = '' } = useParams()
  const queryClient = useQueryClient()
  const query = fixSearchQuery(Number(id))
  const { found, live } = useJob(query, `/api/fixsearches/${id}/events`)
  const lags = found.data !== undefined && lagsProgress(found.data)
  const progressKey = JSON.stringify(found.data?.progress ?? null)
  useEffect(() => {
    // once per progress the stream brings (the key by value, not a new array each render): a refetch
    // that still lags does not ask again
    if (lags) void queryClient.invalidateQueries({ queryKey: fixSearchQuery(Number(id)).queryKey })
  }, [lags, progressKey, queryClient, id])
  return (
    <JobPage found={found} noun="fix search">
      {(data) => (
        <FixSearchView
          search={data}
          linkReplay
          actions={
            live && (
              <CancelButton
                cancel={() => fixSearchesApi.cancel(data.id)}
                onSettled={() => void queryClient.invalidateQueries({ queryKey: query.queryKey })}
                testId="fix-cancel"
              />
            )
          }
          tools={
            <JobTools
              exportHref={`/api/fixsearches/${data.id}/export`}
              testId="fix"
              share={{
                make: async () => {
                  const token = (await fixSearchesApi.share(data.id)).share_token
                  return token ? fixSearchSharePath(token) : null
                },
                shared: data.shared ?? false,
                testId: 'fix-share',
              }}
            />
          }
        />
      )}
    </JobPage>
  )
}
