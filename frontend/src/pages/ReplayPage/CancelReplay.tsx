import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { ErrorBox } from '../../components/ErrorBox'
import { replayQuery, replaysQuery } from '../../queries/replays'
import { meQuery } from '../../queries/users'

/** Cancel a queued or running replay (operators and admins): the statement running is killed, its
 * servers stopped, what it measured kept as a partial report. */
export function CancelReplay({ replayId }: { replayId: number }) {
  const queryClient = useQueryClient()
  const me = useQuery({ ...meQuery(), retry: false })
  const cancel = useMutation({
    mutationFn: () => api.cancelReplay(replayId),
    onSettled: () => {
      void queryClient.invalidateQueries(replayQuery(replayId))
      void queryClient.invalidateQueries(replaysQuery())
    },
  })
  if (me.data?.role === 'viewer') return null
  return (
    <>
      <button
        type="button"
        className="btn btn-danger"
        data-testid="replay-cancel"
        disabled={cancel.isPending || cancel.isSuccess}
        onClick={() => cancel.mutate()}
      >
        {cancel.isPending || cancel.isSuccess ? 'Cancelling…' : 'Cancel'}
      </button>
      <ErrorBox error={cancel.error} title="Cancel failed" />
    </>
  )
}
