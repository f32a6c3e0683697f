import { useMutation, useQuery } from '@tanstack/react-query'
import { meQuery } from '../../queries/users'
import { ErrorBox } from '../ErrorBox'
import { PendingButton } from '../PendingButton'

interface Props {
  /** The kind's cancel request (POST .../cancel): 202 once asked; the job's final status follows. */
  cancel: () => Promise<unknown>
  /** After the request, answered or refused: refetch what shows the job. */
  onSettled?: () => void
  /** The button's test id (`run-cancel`, `replay-cancel`, ...). */
  testId: string
  /** In a card (a capture's check), not a page header. */
  small?: boolean
}

/** Every job's one Cancel button, for a job not final yet: asked once (then "Cancelling…" until the
 * job's final status hides it), refused requests shown as "Cancel failed: <the API's words>". A
 * viewer is shown none (the API answers a viewer's cancel 403). */
export function CancelButton({ cancel, onSettled, testId, small = false }: Props) {
  const me = useQuery({ ...meQuery(), retry: false })
  const request = useMutation({ mutationFn: cancel, onSettled })
  if (me.data?.role === 'viewer') return null
  const asked = request.isPending || request.isSuccess
  return (
    <>
      <PendingButton
        pending={asked}
        busy="Cancelling…"
        className={small ? 'btn btn-danger btn-small' : 'btn btn-danger'}
        testId={testId}
        onClick={() => request.mutate()}
      >
        Cancel
      </PendingButton>
      <ErrorBox error={request.error} title="Cancel failed" />
    </>
  )
}
