import { useQueryClient } from '@tanstack/react-query'
import { useParams } from 'react-router-dom'
import { attributionSharePath, attributionsApi } from '../../api/attributions'
import { AttributionView } from '../../components/attribution/AttributionView'
import { CancelButton } from '../../components/JobPage/CancelButton'
import { JobPage, useJob } from '../../components/JobPage/JobPage'
import { JobTools } from '../../components/JobPage/JobTools'
import { attributionQuery } from '../../queries/attributions'

/** /attributions/:id: which changed settings explain a variant's gap, step by step, with the result; its
 * cancel, exports and share link (the read-only view at /share/attributions/:token). While it runs, its
 * events (GET /api/attributions/{id}/events: each step run started or measured) refetch it. */
export function AttributionPage() {
  const { id = '' } = useParams()
  const queryClient = useQueryClient()
  const query = attributionQuery(Number(id))
  const { found, live } = useJob(query, `/api/attributions/${id}/events`)
  return (
    <JobPage found={found} noun="attribution">
      {(data) => (
        <AttributionView
          attribution={data}
          linkRuns
          actions={
            live && (
              <CancelButton
                cancel={() => attributionsApi.cancel(data.id)}
                onSettled={() => void queryClient.invalidateQueries({ queryKey: query.queryKey })}
                testId="attribution-cancel"
              />
            )
          }
          tools={
            <JobTools
              exportHref={`/api/attributions/${data.id}/export`}
              testId="attribution"
              share={{
                make: async () => {
                  const token = (await attributionsApi.share(data.id)).share_token
                  return token ? attributionSharePath(token) : null
                },
                shared: data.shared ?? false,
                testId: 'attribution-share',
              }}
            />
          }
        />
      )}
    </JobPage>
  )
}
