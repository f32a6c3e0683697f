import { useCallback } from 'react'
import { checkEventsPath } from '../../api/captures'
import { isFinal } from '../../api/models'
import type { CheckRead } from '../../client'
import { checksQuery, POLL_MS } from '../../queries/captures'
import { useJobStream } from '../../streams/useJobStream'

/** Follows check `checkId` of capture `captureId` over its events (GET
 * /api/captures/{id}/checks/{check}/events) while it runs: a new status refetches the capture's
 * checks (checksQuery), its final one once more and the stream ends. While the stream is down the
 * checks are read every POLL_MS, as they were before the stream. Renders nothing: one per running
 * check, beside its CheckView. */
export function CheckEvents({ captureId, checkId }: { captureId: number; checkId: number }) {
  const pick = useCallback(
    (cached: unknown) => (cached as CheckRead[] | undefined)?.find((check) => check.id === checkId),
    [checkId],
  )
  useJobStream(checkEventsPath(captureId, checkId), true, checksQuery(captureId).queryKey, isFinal, {
    pick,
    fallbackMs: POLL_MS,
  })
  return null
}
