import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { useParams } from 'react-router-dom'
import { fixSearchesApi, fixSearchSharePath } from '../../api/fixsearches'
import { isFinal } from '../../api/models'
import { ErrorBox } from '../../components/ErrorBox'
import { ShareLinkOnce } from '../../components/ShareLinkOnce'
import { fixSearchQuery } from '../../queries/fixsearches'
import { meQuery } from '../../queries/users'
import { useJobStream } from '../../streams/useJobStream'
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
  const found = useQuery(query)
  const me = useQuery({ ...meQuery(), retry: false })
  const live = found.data !== undefined && !isFinal(found.data.status)
  useJobStream(`/api/fixsearches/${id}/events`, live, query.queryKey, isFinal)
  const lags = found.data !== undefined && lagsProgress(found.data)
  const progressKey = JSON.stringify(found.data?.progress ?? null)
  useEffect(() => {
    // once per progress the stream brings (the key by value, not a new array each render): a refetch
    // that still lags does not ask again
    if (lags) void queryClient.invalidateQueries({ queryKey: fixSearchQuery(Number(id)).queryKey })
  }, [lags, progressKey, queryClient, id])
  const cancel = useMutation({
    mutationFn: () => fixSearchesApi.cancel(Number(id)),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: query.queryKey }),
  })
  const share = useMutation({ mutationFn: () => fixSearchesApi.share(Number(id)) })
  const data = found.data
  if (!data)
    return (
      <div className="page">
        <ErrorBox error={found.error} />
      </div>
    )
  const token = share.data?.share_token
  const sharePath = token ? fixSearchSharePath(token) : null
  return (
    <div className="page">
      <FixSearchView
        search={data}
        linkReplay
        actions={
          !isFinal(data.status) &&
          me.data?.role !== 'viewer' && (
            <button
              type="button"
              className="btn btn-danger"
              data-testid="fix-cancel"
              disabled={cancel.isPending || cancel.isSuccess}
              onClick={() => cancel.mutate()}
            >
              {cancel.isPending || cancel.isSuccess ? 'Cancelling…' : 'Cancel'}
            </button>
          )
        }
        tools={
          <>
            <p className="muted">
              Export <a href={`/api/fixsearches/${data.id}/export?format=csv`} data-testid="fix-csv">CSV</a> ·{' '}
              <a href={`/api/fixsearches/${data.id}/export?format=json`} data-testid="fix-json">JSON</a> ·{' '}
              <button type="button" className="btn btn-secondary btn-small" data-testid="fix-share-button" onClick={() => share.mutate()}>
                Share
              </button>{' '}
              <ShareLinkOnce path={sharePath} shared={data.shared ?? false} testId="fix-share" />
            </p>
            <ErrorBox error={cancel.error ?? share.error} />
          </>
        }
      />
    </div>
  )
}
