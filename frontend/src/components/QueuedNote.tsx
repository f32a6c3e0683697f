import { useQuery } from '@tanstack/react-query'
import { Link } from 'react-router-dom'
import { jobPoolQuery } from '../queries/pools'

/** On a queued run's (or replay's) page: "queued for pool X: no live worker" while its pool has none,
 *  instead of a run that waits silently; nothing while a worker of its pool is live. */
export function QueuedNote({ kind, id }: { kind: 'run' | 'replay'; id: number }) {
  const where = useQuery(jobPoolQuery(kind, id))
  if (!where.data?.message) return null
  return (
    <p className="notice small" data-testid="queued-note">
      {where.data.message}. Start a worker with UPGRADELAB_POOL={where.data.pool} on a host that reaches its
      targets, or cancel the {kind}. <Link to="/pools">Pools</Link>
    </p>
  )
}
