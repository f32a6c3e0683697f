import type { RunFilters as ApiFilters } from '../../api/client'
import type { JobStatus } from '../../client'

/** The URL parameters the runs list filters and sorts by (the form's fields). */
export const FILTER_KEYS = ['workload', 'target', 'status', 'created_from', 'created_to', 'q', 'sort', 'order'] as const

/** The filters as the URL and the form hold them: text, one status. */
export type Filters = Partial<Record<(typeof FILTER_KEYS)[number], string>>

/** The API's query: a list of statuses; date inputs give a day, the API wants instants ("to"
 * includes that whole day); sort and order as the form's selects give them. */
export function toApi(filters: Filters): ApiFilters {
  const { status, created_from, created_to, sort, order, ...text } = filters
  return {
    ...text,
    status: status ? [status as JobStatus] : undefined,
    created_from: created_from ? `${created_from}T00:00:00Z` : undefined,
    created_to: created_to ? `${created_to}T23:59:59.999Z` : undefined,
    sort: sort as ApiFilters['sort'],
    order: order as ApiFilters['order'],
  }
}
