import { useMutation } from '@tanstack/react-query'
import { useNavigate } from 'react-router-dom'
import { attributionsApi } from '../api/attributions'
import { ErrorBox } from './ErrorBox'
import { PendingButton } from './PendingButton'

/** "Explain this gap" on a comparison row with a decided verdict: starts an attribution (which of the
 * settings that differ from the baseline make the difference) and opens its page. */
export function ExplainGapButton({ runId, variant }: { runId: number; variant: string }) {
  const navigate = useNavigate()
  const start = useMutation({
    mutationFn: () => attributionsApi.create({ run_id: runId, variant, target_share: 0.8, budget_runs: 12, budget_minutes: 60 }),
    onSuccess: (created) => navigate(`/attributions/${created.id}`),
  })
  return (
    <>
      <PendingButton
        pending={start.isPending}
        busy="Starting…"
        className="btn btn-secondary btn-small"
        testId="explain-gap"
        onClick={() => start.mutate()}
      >
        Explain this gap
      </PendingButton>
      <ErrorBox error={start.error} title="Could not start" />
    </>
  )
}
