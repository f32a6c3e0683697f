import { useMutation } from '@tanstack/react-query'
import { api } from '../../api/client'
import { ErrorBox } from '../../components/ErrorBox'
import { ShareLinkOnce } from '../../components/ShareLinkOnce'

/** A read-only link to this replay's report (revocable like run and comparison links). */
export function ShareReplay({ replayId }: { replayId: number }) {
  const share = useMutation({ mutationFn: () => api.createShare({ kind: 'replay', replay_id: replayId }) })
  return (
    <>
      ·{' '}
      <button type="button" className="btn btn-secondary btn-small" onClick={() => share.mutate()}>
        Share
      </button>
      <ShareLinkOnce path={share.data?.path} shared={false} testId="replay-share-link" />
      <ErrorBox error={share.error} />
    </>
  )
}
