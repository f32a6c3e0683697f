// Query options of the datasets (SQL dumps): the live ones and the deleted ones' records.
import { queryOptions } from '@tanstack/react-query'
import { api } from '../api/client'

/** Every dataset query (live and deleted): invalidate after an upload or a delete. */
export const DATASETS_KEY = ['datasets'] as const

/** The live datasets (GET /api/datasets). */
export function datasetsQuery() {
  return queryOptions({ queryKey: [...DATASETS_KEY, 'live'] as const, queryFn: api.datasets })
}

/** The deleted datasets' records (GET /api/datasets?deleted=true). */
export function deletedDatasetsQuery() {
  return queryOptions({ queryKey: [...DATASETS_KEY, 'deleted'] as const, queryFn: api.deletedDatasets })
}
