// Query options of the signed-in user and the share links opened without signing in.
import { queryOptions } from '@tanstack/react-query'
import { api } from '../api/client'
import { isFinal } from '../api/models'

/** Everything cached about the signed-in user: invalidate on sign-in, sign-out and a 401. */
export const ME_KEY = ['me'] as const

/** The signed-in user and role (GET /api/auth/me; 401 when signed out). */
export function meQuery() {
  return queryOptions({ queryKey: ME_KEY, queryFn: api.me })
}

/** What share link `token` shows: a run, a comparison or a replay (GET /api/public/shares/{token});
 * a run still running is read again every 2 s (a token opens no stream). */
export function sharedQuery(token: string) {
  return queryOptions({
    queryKey: ['shared', token] as const,
    queryFn: () => api.shared(token),
    refetchInterval: (q) => {
      const run = q.state.data?.run?.run
      return run && !isFinal(run.status) ? 2000 : false
    },
  })
}
