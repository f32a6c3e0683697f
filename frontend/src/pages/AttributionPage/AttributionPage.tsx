import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useParams } from 'react-router-dom'
import { attributionSharePath, attributionsApi } from '../../api/attributions'
import { isFinal } from '../../api/models'
import { AttributionView } from '../../components/attribution/AttributionView'
import { ErrorBox } from '../../components/ErrorBox'
import { ShareLinkOnce } from '../../components/ShareLinkOnce'
import { attributionQuery } from '../../queries/attributions'
import { useJobStream } from '../../streams/useJobStream'

/** /attributions/:id: which changed settings explain a variant's gap, step by step, with the result; its
 * cancel, exports and share link (the read-only view at /share/attributions/:token). While it runs, its
 * events (GET /api/attributions/{id}/events: each step run started or measured) refetch it. */
export function AttributionPage() {
  const { id = '' } = useParams()
  const queryClient = useQueryClient()
  const query = attributionQuery(Number(id))
  const found = useQuery(query)
  const live = found.data !== undefined && !isFinal(found.data.status)
  useJobStream(`/api/attributions/${id}/events`, live, query.queryKey, isFinal)
  const cancel = useMutation({
    mutationFn: () => attributionsApi.cancel(Number(id)),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: query.queryKey }),
  })
  const share = useMutation({ mutationFn: () => attributionsApi.share(Number(id)) })
  const data = found.data
  if (!data)
    return (
      <div className="page">
        <ErrorBox error={found.error} />
      </div>
    )
  const final = isFinal(data.status)
  const token = share.data?.share_token
  const sharePath = token ? attributionSharePath(token) : null
  return (
    <div className="page">
      <AttributionView
        attribution={data}
        linkRuns
        actions={
          !final && (
            <button type="button" className="btn btn-danger" data-testid="attribution-cancel" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
              Cancel
            </button>
          )
        }
        tools={
          <>
            <p className="muted">
              Export <a href={`/api/attributions/${data.id}/export?format=csv`} data-testid="attribution-csv">CSV</a> ·{' '}
              <a href={`/api/attributions/${data.id}/export?format=json`} data-testid="attribution-json">JSON</a> ·{' '}
              <button type="button" className="btn btn-secondary btn-small" data-testid="attribution-share-button" onClick={() => share.mutate()}>
                Share
              </button>{' '}
              <ShareLinkOnce path={sharePath} shared={data.shared ?? false} testId="attribution-share" />
            </p>
            <ErrorBox error={cancel.error ?? share.error} />
          </>
        }
      />
    </div>
  )
}
