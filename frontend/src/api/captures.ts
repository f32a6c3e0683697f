// Captures (a team's server: configuration, accounts, workload) and their checks against a new
// version: the calls, over the generated client. Every shape is the generated client's
// (src/client/types.gen.ts: CaptureRead, CaptureSummary, CheckRead and their parts).
import * as sdk from '../client/sdk.gen'
import type { CaptureCreate, TeamHost } from '../client'
import { unwrap } from './client'

export const capturesApi = {
  create: (body: CaptureCreate) => unwrap(sdk.createCapture({ body })),
  get: (id: number) => unwrap(sdk.getCapture({ path: { capture_id: id } })),
  /** Newest first; only `target`'s when given. */
  list: (target?: string) => unwrap(sdk.listCaptures({ query: { target } })),
  cancel: (id: number) => unwrap(sdk.cancelCapture({ path: { capture_id: id } })),
  checks: (id: number) => unwrap(sdk.listChecks({ path: { capture_id: id } })),
  /** Check capture `id`'s settings against lab target `target`'s binary (a local or tarball target). */
  /** A check against `target`; `teamHost`: the team's server's CPUs and memory where the capture
   * does not show them (host-dependent defaults are resolved for it). */
  createCheck: (id: number, target: string, teamHost?: TeamHost | null) =>
    unwrap(sdk.createCheck({ path: { capture_id: id }, body: { target, team_host: teamHost ?? null } })),
  cancelCheck: (id: number, checkId: number) =>
    unwrap(sdk.cancelCheck({ path: { capture_id: id, check_id: checkId } })),
  /** The capture's settings as a variant's startup options on `target` (dropped and scaled listed),
   * for a job of `instances` server instances. */
  variant: (id: number, target: string, instances: number) =>
    unwrap(sdk.captureVariant({ path: { capture_id: id }, query: { target, instances } })),
  /** Give it a read-only share link (once: the same token after); revoke it (it stops at once). */
  share: (id: number) => unwrap(sdk.shareCapture({ path: { capture_id: id } })),
  revokeShare: (id: number) => unwrap(sdk.revokeCaptureShare({ path: { capture_id: id } })),
  shareCheck: (id: number, checkId: number) =>
    unwrap(sdk.shareCheck({ path: { capture_id: id, check_id: checkId } })),
  revokeCheckShare: (id: number, checkId: number) =>
    unwrap(sdk.revokeCheckShare({ path: { capture_id: id, check_id: checkId } })),
  /** Read-only, without sign-in (a share link); 404 for an unknown or revoked token. */
  shared: (token: string) => unwrap(sdk.sharedCapture({ path: { token } })),
  sharedCheck: (token: string) => unwrap(sdk.sharedCheck({ path: { token } })),
  /** The replayable statements (queries.sql) as text. */
  queries: async (id: number) => (await unwrap(sdk.captureQueries({ path: { capture_id: id }, parseAs: 'text' }))) as string,
}

/** The captured digests as the SQL file a replay takes (GET /api/captures/{id}/queries.sql). */
export const captureQueriesPath = (id: number) => `/api/captures/${id}/queries.sql`

/** The capture's Server-Sent Events (api/streaming.py): its status and progress. */
export const captureEventsPath = (id: number) => `/api/captures/${id}/events`

/** A check's Server-Sent Events (snapshot {status, progress}, then status events to its final one;
 * the worker publishes them on the check's stream, kind `capture_check`). */
export const checkEventsPath = (id: number, checkId: number) => `/api/captures/${id}/checks/${checkId}/events`

/** The UI addresses of share links (App.tsx's public routes): what a team lead is sent. */
export const captureSharePath = (token: string) => `/share/captures/${token}`
export const checkSharePath = (token: string) => `/share/captures/checks/${token}`

/** A check's findings as CSV (GET /api/captures/{id}/checks/{check}/findings.csv): the capture, its
 * target and version, the new version on every row. */
export const checkCsvPath = (id: number, checkId: number) => `/api/captures/${id}/checks/${checkId}/findings.csv`

/** A shared check's findings as CSV, without sign-in (GET /api/public/captures/checks/{token}/findings.csv). */
export const sharedCheckCsvPath = (token: string) =>
  `/api/public/captures/checks/${encodeURIComponent(token)}/findings.csv`
