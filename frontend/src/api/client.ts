// The thin layer over the generated client (src/client/, scripts/client.sh): same-origin cookies, the
// sign-in event on a 401, and errors as ApiError with the server's `detail` as one readable message.
// Every shape comes from the backend's OpenAPI schema; nothing here restates one.
import { client } from '../client/client.gen'
import * as sdk from '../client/sdk.gen'
import type {
  ComparisonQuery,
  ExperimentCreate,
  ListRunsData,
  ReplayCreate,
  ShareCreate,
  TargetCreate,
} from '../client'

/** Error thrown for non-2xx responses; message is the server's `detail`. */
export class ApiError extends Error {
  readonly status: number
  readonly detail: unknown

  constructor(status: number, message: string, detail: unknown) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.detail = detail
  }
}

interface ValidationItem {
  loc?: unknown[]
  msg?: string
}

function formatValidationItem(item: ValidationItem): string {
  const loc = Array.isArray(item.loc) ? item.loc : []
  // FastAPI prefixes with "body"/"query"/"path"; drop it for readability.
  const parts = loc[0] === 'body' || loc[0] === 'query' || loc[0] === 'path' ? loc.slice(1) : loc
  const path = parts.map(String).join('.')
  const msg = item.msg ?? 'invalid value'
  return path ? `${path}: ${msg}` : msg
}

/** Turn a FastAPI `detail` (string, list of {loc,msg}, or anything) into one message. */
export function formatDetail(detail: unknown): string | null {
  if (detail == null) return null
  if (typeof detail === 'string') return detail
  if (Array.isArray(detail)) {
    const lines = detail.map((d) =>
      typeof d === 'object' && d !== null ? formatValidationItem(d as ValidationItem) : String(d),
    )
    return lines.join('; ')
  }
  if (typeof detail === 'object' && 'msg' in detail) {
    return formatValidationItem(detail as ValidationItem)
  }
  return JSON.stringify(detail)
}

/** The error a failed call throws: ApiError with the server's detail, or a network error. */
export function toError(body: unknown, response: Response | undefined): Error {
  if (response === undefined) {
    const reason = body instanceof Error ? body.message : String(body)
    return new Error(`Network error: ${reason}`, { cause: body })
  }
  const detail =
    typeof body === 'object' && body !== null && 'detail' in body ? (body as { detail: unknown }).detail : body
  const message = formatDetail(detail) || `${response.status} ${response.statusText}`.trim()
  return new ApiError(response.status, message, detail)
}

// An absolute base: the same origin, which also lets Request parse the URL outside a browser (tests).
client.setConfig({ baseUrl: window.location.origin, credentials: 'same-origin' })
client.interceptors.response.use((response, request) => {
  // A failed sign-in (/api/auth/login) is the form's own error, not a reason to ask for sign-in.
  if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/auth/')) {
    window.dispatchEvent(new Event('upgradelab:unauthorized'))
  }
  return response
})
client.interceptors.error.use((error, response) => toError(error, response))

type Result<T> = { data?: T; error?: unknown }

/** The response body of a generated call, or its error (ApiError) thrown. */
export async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  const { data, error } = await call
  if (error !== undefined) throw error
  return data as T
}

/** The query string of a comparison (also the share and export links). */
export function comparisonParams(c: ComparisonQuery): string {
  const q = new URLSearchParams({ runs: c.runs.join(',') })
  if (c.baseline) q.set('baseline', c.baseline)
  if (c.warmup !== undefined) q.set('warmup', String(c.warmup))
  if (c.threshold !== undefined) q.set('threshold', String(c.threshold))
  return q.toString()
}

export type RunFilters = Omit<NonNullable<ListRunsData['query']>, 'limit' | 'offset'>

type Id = number | string

export const api = {
  targets: () => unwrap(sdk.listTargets()),
  target: (name: string) => unwrap(sdk.getTarget({ path: { name } })),
  pools: () => unwrap(sdk.listPools()),
  jobPool: (kind: 'run' | 'replay', id: number) => unwrap(sdk.jobPool({ path: { kind, job_id: id } })),
  createTarget: (body: TargetCreate) => unwrap(sdk.createTarget({ body })),
  detectCapabilities: (name: string, restartTest: boolean) =>
    unwrap(sdk.detectCapabilities({ path: { name }, body: { restart_test: restartTest } })),
  workloads: () => unwrap(sdk.listWorkloads()),
  workload: (slug: string) => unwrap(sdk.getWorkload({ path: { slug } })),
  createExperiment: (body: ExperimentCreate) => unwrap(sdk.createExperiment({ body })),
  experiment: (id: number) => unwrap(sdk.getExperiment({ path: { experiment_id: id } })),
  startRun: (experimentId: number) => unwrap(sdk.startRun({ path: { experiment_id: experimentId } })),
  runs: (limit: number, offset: number, filters: RunFilters = {}) =>
    unwrap(sdk.listRuns({ query: { limit, offset, ...filters } })),
  updateRun: (id: Id, body: { name?: string; notes?: string }) =>
    unwrap(sdk.updateRun({ path: { run_id: Number(id) }, body })),
  rerun: (id: Id) => unwrap(sdk.rerun({ path: { run_id: Number(id) } })),
  compare: (c: ComparisonQuery, series = true) =>
    unwrap(
      sdk.getComparison({
        query: { runs: c.runs.join(','), baseline: c.baseline, warmup: c.warmup, threshold: c.threshold, series },
      }),
    ),
  me: () => unwrap(sdk.me()),
  login: (username: string, password: string) => unwrap(sdk.login({ body: { username, password } })),
  logout: () => unwrap(sdk.logout()),
  shares: (runId?: number) => unwrap(sdk.listShares({ query: { run_id: runId } })),
  createShare: (body: ShareCreate) => unwrap(sdk.createShare({ body })),
  revokeShare: (id: number) => unwrap(sdk.revokeShare({ path: { link_id: id } })),
  shared: (token: string) => unwrap(sdk.shared({ path: { token } })),
  run: (id: Id) => unwrap(sdk.getRun({ path: { run_id: Number(id) } })),
  /** The run, its series downsampled to a chart `width` pixels wide, and the summary. */
  results: (id: Id, width?: number) => unwrap(sdk.runResults({ path: { run_id: Number(id) }, query: { width } })),
  statements: (id: Id) => unwrap(sdk.runStatements({ path: { run_id: Number(id) } })),
  probes: (id: Id, width?: number) => unwrap(sdk.runProbes({ path: { run_id: Number(id) }, query: { width } })),
  /** Per-group medians; with iterations=false without every iteration. */
  groups: (id: Id, iterations = true) => unwrap(sdk.runGroups({ path: { run_id: Number(id) }, query: { iterations } })),
  context: (id: Id) => unwrap(sdk.getRunContext({ path: { run_id: Number(id) } })),
  variablesDiff: (id: Id) => unwrap(sdk.runVariablesDiff({ path: { run_id: Number(id) } })),
  cancelRun: (id: Id) => unwrap(sdk.cancelRun({ path: { run_id: Number(id) } })),
  datasets: () => unwrap(sdk.listDatasets()),
  /** The deleted datasets' records (name, sha256, size, tables per target, when, by whom). */
  deletedDatasets: () => unwrap(sdk.listDatasets({ query: { deleted: true } })),
  deleteDataset: (name: string) => unwrap(sdk.deleteDataset({ path: { name } })),
  replays: () => unwrap(sdk.listReplays()),
  replay: (id: Id) => unwrap(sdk.getReplay({ path: { replay_id: Number(id) } })),
  createReplay: (body: ReplayCreate) => unwrap(sdk.createReplay({ body })),
  cancelReplay: (id: Id) => unwrap(sdk.cancelReplay({ path: { replay_id: Number(id) } })),
}
