// Concurrent replays (a log's sessions replayed together, backend concurrent_replay/): the calls,
// over the generated client. Every shape is the generated client's (ConcurrentReplayRead and its parts).
import * as sdk from '../client/sdk.gen'
import type { ConcurrentReplayCreate } from '../client'
import { unwrap } from './client'

export const concurrentReplaysApi = {
  create: (body: ConcurrentReplayCreate) => unwrap(sdk.createConcurrentReplay({ body })),
  get: (id: number) => unwrap(sdk.getConcurrentReplay({ path: { replay_id: id } })),
  cancel: (id: number) => unwrap(sdk.cancelConcurrentReplay({ path: { replay_id: id } })),
  share: (id: number) => unwrap(sdk.shareConcurrentReplay({ path: { replay_id: id } })),
  /** Read-only, without sign-in (a share link). */
  shared: (token: string) => unwrap(sdk.sharedConcurrentReplay({ path: { token } })),
}

/** The UI address of a share link (App.tsx's public routes). */
export const concurrentReplaySharePath = (token: string) => `/share/concurrent-replays/${token}`

/** The log's format as the backend reads it: a slow log's header in its first 64 KiB, else general
 * (the CLI's cli/concurrent_replay.py log_format). */
export function logFormat(text: string): 'slow' | 'general' {
  const head = text.slice(0, 65536)
  return head.includes('# Time:') || head.includes('# User@Host:') ? 'slow' : 'general'
}
