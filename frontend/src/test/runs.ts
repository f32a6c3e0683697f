// A run as GET /api/runs/{id} returns it, for the front end's own tests.
import type { Run } from '../api/models'

export function makeRun(overrides: Partial<Run> = {}): Run {
  return {
    id: 7,
    experiment_id: 3,
    name: 'run 7',
    workload: 'insert-truncate',
    status: 'running',
    error: null,
    created_at: '2026-01-01T00:00:00Z',
    started_at: '2026-01-01T00:00:00Z',
    finished_at: null,
    iterations: 10,
    variants: ['mysql-9.7 default', 'mariadb-10.11 default'],
    current_variant: null,
    iterations_done: 0,
    iterations_total: 20,
    ...overrides,
  }
}
