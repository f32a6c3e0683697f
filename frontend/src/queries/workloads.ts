// Query options of the workload templates and the experiments built from them.
import { queryOptions } from '@tanstack/react-query'
import { api } from '../api/client'

/** Every workload template (GET /api/workloads). */
export function workloadsQuery() {
  return queryOptions({ queryKey: ['workloads'] as const, queryFn: api.workloads })
}

/** Template `slug` with the article's set-up and figures (GET /api/workloads/{slug}). */
export function workloadQuery(slug: string) {
  return queryOptions({ queryKey: ['workload', slug] as const, queryFn: () => api.workload(slug) })
}

/** Experiment `id`: its workload, parameters and variants (GET /api/experiments/{id}). */
export function experimentQuery(id: number) {
  return queryOptions({ queryKey: ['experiment', id] as const, queryFn: () => api.experiment(id) })
}
