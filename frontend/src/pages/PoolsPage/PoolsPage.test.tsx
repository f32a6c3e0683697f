import { cleanup, screen, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { QueuedNote } from '../../components/QueuedNote'
import { jsonAnswer, renderOverApi } from '../../test/api'
import { atRoute } from '../../test/router'
import { PoolsPage } from './PoolsPage'

const WORKER = {
  name: 'east@bench-2', pool: 'east', queues: ['east'], direct_queue: 'east@bench-2.dq2', host: 'bench-2', pid: 41, version: '0.1.0',
  python: '3.11.7', cpus: 8, memory_mb: 16384, started_at: '2026-11-24T04:00:00Z', seen_at: '2026-11-24T04:10:00Z',
}
const POOLS = [
  { name: 'east', queue: 'east', workers: [WORKER], queue_depth: 0, waiting: [], targets: ['mysql-9.7'] },
  {
    name: 'west', queue: 'west', workers: [], queue_depth: 1, waiting: [{ kind: 'run', id: 12 }],
    targets: ['mariadb-11.8'],
  },
]
const WAITING = { kind: 'run', id: 12, pool: 'west', live_workers: 0, message: 'queued for pool west: no live worker' }

const answer = jsonAnswer((path) => (path === '/api/pools' ? POOLS : path === '/api/pools/jobs/run/12' ? WAITING : null))

function show(page: ReactNode) {
  renderOverApi(atRoute(page), answer)
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('the pools page', () => {
  it('lists each pool with its live workers, and a pool without one with the jobs waiting in it', async () => {
    show(<PoolsPage />)
    await waitFor(() => expect(screen.getAllByTestId('pool')).toHaveLength(2))
    expect(screen.getByTestId('pool-worker').textContent).toContain('bench-2')
    expect(screen.getByTestId('pool-worker').textContent).toContain('16.0 GiB')
    expect(screen.getByTestId('pool-no-worker').textContent).toBe('No live worker: 1 waiting.')
    expect(screen.getByText('run #12').getAttribute('href')).toBe('/runs/12')
  })

  it("lists a worker's pool queues and labels its own per-worker queue apart from them", async () => {
    show(<PoolsPage />)
    await waitFor(() => expect(screen.getByTestId('pool-worker')).toBeTruthy())
    const queues = screen.getByTestId('worker-queues')
    expect(queues.querySelector('.mono')?.textContent).toBe('east')
    expect(screen.getByTestId('worker-direct-queue').textContent).toBe('own queue east@bench-2.dq2 (replay shards)')
  })

  it("says on a queued run's page that its pool has no live worker", async () => {
    show(<QueuedNote kind="run" id={12} />)
    await waitFor(() => expect(screen.getByTestId('queued-note').textContent).toContain(WAITING.message))
    expect(screen.getByTestId('queued-note').textContent).toContain('UPGRADELAB_POOL=west')
  })
})
