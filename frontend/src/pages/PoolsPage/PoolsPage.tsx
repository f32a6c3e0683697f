import { useQuery } from '@tanstack/react-query'
import { Link } from 'react-router-dom'
import type { PoolRead, WorkerRead } from '../../client'
import { ErrorBox } from '../../components/ErrorBox'
import { poolsQuery } from '../../queries/pools'
import { TableHead } from '../../components/Table/Table'

/** The worker pools: each pool's live workers (their pool's queues, their own queue labelled as such, host facts,
 *  version, last heartbeat), its Celery queue's depth, the targets it may run and the runs and replays waiting in
 *  it (GET /api/pools, every 5 s). */
export function PoolsPage() {
  const pools = useQuery(poolsQuery())
  return (
    <div className="page" data-testid="pools-page">
      <h1>Worker pools</h1>
      <p className="muted small">
        A run goes to the pool of its targets; a worker serves the pool named by its UPGRADELAB_POOL.
      </p>
      {pools.error && <ErrorBox error={pools.error} title="Could not load the pools" />}
      {(pools.data ?? []).map((pool) => (
        <Pool key={pool.name} pool={pool} />
      ))}
    </div>
  )
}

function Pool({ pool }: { pool: PoolRead }) {
  return (
    <section className="chart-card" data-testid="pool" data-pool={pool.name}>
      <h2>
        {pool.name}{' '}
        <span className="muted small">
          queue <span className="mono">{pool.queue}</span>, {pool.queue_depth} message
          {pool.queue_depth === 1 ? '' : 's'} waiting
        </span>
      </h2>
      {pool.workers.length === 0 ? (
        <p className="notice small" data-testid="pool-no-worker">
          No live worker{pool.waiting.length > 0 ? `: ${pool.waiting.length} waiting` : ''}.
        </p>
      ) : (
        <WorkerTable workers={pool.workers} />
      )}
      <p className="small">
        Targets: {pool.targets.length ? pool.targets.join(', ') : '—'}
        {pool.waiting.length > 0 && (
          <>
            {' · '}Waiting:{' '}
            {pool.waiting.map((job, i) => (
              <span key={`${job.kind}-${job.id}`}>
                {i > 0 && ', '}
                <Link to={job.kind === 'run' ? `/runs/${job.id}` : `/replays/${job.id}`}>
                  {job.kind} #{job.id}
                </Link>
              </span>
            ))}
          </>
        )}
      </p>
    </section>
  )
}

function WorkerTable({ workers }: { workers: WorkerRead[] }) {
  return (
    <table className="data-table">
      <TableHead columns={['Worker', 'Queues', 'Host', 'Version', 'CPUs', 'Memory', 'Started', 'Last heartbeat']} />
      <tbody>
        {workers.map((w) => (
          <tr key={`${w.name}-${w.pid}`} data-testid="pool-worker">
            <td className="mono">{w.name}</td>
            <td data-testid="worker-queues">
              <span className="mono">{w.queues.join(', ')}</span>
              {w.direct_queue && (
                <div
                  className="muted small"
                  data-testid="worker-direct-queue"
                  title="Celery's per-worker queue (worker_direct): a sharded replay sends each shard to its worker there"
                >
                  own queue <span className="mono">{w.direct_queue}</span> (replay shards)
                </div>
              )}
            </td>
            <td>
              {w.host} <span className="muted small">pid {w.pid}</span>
            </td>
            <td className="mono">
              {w.version} <span className="muted small">Python {w.python}</span>
            </td>
            <td>{w.cpus}</td>
            <td>{(w.memory_mb / 1024).toFixed(1)} GiB</td>
            <td>{new Date(w.started_at).toLocaleString()}</td>
            <td>{new Date(w.seen_at).toLocaleTimeString()}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
