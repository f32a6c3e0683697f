// Fix searches (a remedy for a replay's slower fingerprint, backend fixsearch/): the calls, over the
// generated client. Every shape is the generated client's (src/client/types.gen.ts: FixSearchRead and
// its parts).
import * as sdk from '../client/sdk.gen'
import type { FixSearchCreate } from '../client'
import { unwrap } from './client'

export const fixSearchesApi = {
  create: (body: FixSearchCreate) => unwrap(sdk.createFixSearch({ body })),
  get: (id: number) => unwrap(sdk.getFixSearch({ path: { search_id: id } })),
  /** Newest first; only replay `replayId`'s when given. */
  list: (replayId?: number) => unwrap(sdk.listFixSearches({ query: { replay_id: replayId } })),
  cancel: (id: number) => unwrap(sdk.cancelFixSearch({ path: { search_id: id } })),
  share: (id: number) => unwrap(sdk.shareFixSearch({ path: { search_id: id } })),
  /** Read-only, without sign-in (a share link). */
  shared: (token: string) => unwrap(sdk.sharedFixSearch({ path: { token } })),
}

/** The UI address of a share link (App.tsx's public routes). */
export const fixSearchSharePath = (token: string) => `/share/fixsearches/${token}`
