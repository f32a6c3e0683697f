// Query options of the targets (servers under test): the list and one target's detail.
import { queryOptions } from '@tanstack/react-query'
import { api } from '../api/client'

/** Every target (GET /api/targets). */
export function targetsQuery() {
  return queryOptions({ queryKey: ['targets'] as const, queryFn: api.targets })
}

/** Target `name`'s detail, capabilities included for an existing server (GET /api/targets/{name}). */
export function targetQuery(name: string) {
  return queryOptions({ queryKey: ['target', name] as const, queryFn: () => api.target(name) })
}
