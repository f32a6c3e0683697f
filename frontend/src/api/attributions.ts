// Attributions (which changed settings explain a gap): the calls, over the generated client. Every
// shape is the generated client's (src/client/types.gen.ts: AttributionRead and its parts).
import * as sdk from '../client/sdk.gen'
import type { AttributionCreate } from '../client'
import { unwrap } from './client'

export const attributionsApi = {
  create: (body: AttributionCreate) => unwrap(sdk.createAttribution({ body })),
  get: (id: number) => unwrap(sdk.getAttribution({ path: { attribution_id: id } })),
  cancel: (id: number) => unwrap(sdk.cancelAttribution({ path: { attribution_id: id } })),
  share: (id: number) => unwrap(sdk.shareAttribution({ path: { attribution_id: id } })),
  /** Read-only, without sign-in (a share link). */
  shared: (token: string) => unwrap(sdk.sharedAttribution({ path: { token } })),
}

/** The UI address of a share link (App.tsx's public routes): what the upgrade lead opens. */
export const attributionSharePath = (token: string) => `/share/attributions/${token}`

