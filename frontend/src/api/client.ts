import type {
  Experiment,
  ExperimentCreate,
  Comparison,
  ComparisonQuery,
  Run,
  RunFilters,
  RunList,
  RunProbes,
  RunContext,
  RunGroups,
  RunResults,
  StatementRow,
  SharedView,
  ShareLink,
  Target,
  TargetDetail,
  ExistingTargetCreate,
  User,
  VariableDiff,
  Workload,
} from './types'

const BASE = '/api'

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

export async function request<T>(path: string, init?: RequestInit): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (init?.body !== undefined) headers['Content-Type'] = 'application/json'
  let res: Response
  try {
    res = await fetch(`${BASE}${path}`, { ...init, headers, credentials: 'same-origin' })
  } catch (e) {
    throw new Error(`Network error: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
  }
  const text = await res.text()
  let body: unknown = null
  if (text) {
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
  }
  if (res.status === 401 && !path.startsWith('/auth/')) {
    window.dispatchEvent(new Event('upgradelab:unauthorized'))
  }
  if (!res.ok) {
    const detail =
      typeof body === 'object' && body !== null && 'detail' in body
        ? (body as { detail: unknown }).detail
        : body
    const message = formatDetail(detail) || `${res.status} ${res.statusText}`.trim()
    throw new ApiError(res.status, message, detail)
  }
  return body as T
}

export function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  return request<T>(path, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

export function post<T>(path: string, body?: unknown): Promise<T> {
  return send<T>('POST', path, body)
}

function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
  }
  return q.toString()
}

export function comparisonParams(c: ComparisonQuery): string {
  return query({
    runs: c.runs.join(','),
    baseline: c.baseline ?? undefined,
    warmup: c.warmup,
    threshold: c.threshold,
  })
}

export const api = {
  targets: () => request<Target[]>('/targets'),
  target: (name: string) => request<TargetDetail>(`/targets/${encodeURIComponent(name)}`),
  createTarget: (body: ExistingTargetCreate) => post<Target>('/targets', body),
  detectCapabilities: (name: string, restartTest: boolean) =>
    post<TargetDetail>(`/targets/${encodeURIComponent(name)}/capabilities`, { restart_test: restartTest }),
  workloads: () => request<Workload[]>('/workloads'),
  workload: (slug: string) => request<Workload>(`/workloads/${encodeURIComponent(slug)}`),
  createExperiment: (body: ExperimentCreate) => post<Experiment>('/experiments', body),
  startRun: (experimentId: number) => post<Run>(`/experiments/${experimentId}/runs`),
  runs: (limit: number, offset: number, filters: RunFilters = {}) =>
    request<RunList>(`/runs?${query({ limit, offset, ...filters })}`),
  updateRun: (id: number | string, body: { name?: string; notes?: string }) =>
    send<Run>('PATCH', `/runs/${id}`, body),
  rerun: (id: number | string) => post<Run>(`/runs/${id}/rerun`),
  compare: (c: ComparisonQuery, series = true) =>
    request<Comparison>(`/compare?${comparisonParams(c)}${series ? '' : '&series=false'}`),
  me: () => request<User>('/auth/me'),
  login: (username: string, password: string) =>
    post<{ token: string; user: User }>('/auth/login', { username, password }),
  logout: () => post<null>('/auth/logout'),
  shares: (runId?: number) => request<ShareLink[]>(`/shares?${query({ run_id: runId })}`),
  createShare: (body: {
    kind: 'run' | 'comparison' | 'replay'
    run_id?: number
    comparison?: ComparisonQuery
    replay_id?: number
  }) =>
    post<ShareLink>('/shares', body),
  revokeShare: (id: number) => send<ShareLink>('DELETE', `/shares/${id}`),
  shared: (token: string) => request<SharedView>(`/public/shares/${encodeURIComponent(token)}`),
  run: (id: number | string) => request<Run>(`/runs/${id}`),
  results: (id: number | string) => request<RunResults>(`/runs/${id}/results`),
  statements: (id: number | string) => request<StatementRow[]>(`/runs/${id}/statements`),
  probes: (id: number | string) => request<RunProbes>(`/runs/${id}/probes`),
  groups: (id: number | string) => request<RunGroups>(`/runs/${id}/groups`),
  context: (id: number | string) => request<RunContext>(`/runs/${id}/context`),
  variablesDiff: (id: number | string) => request<VariableDiff[]>(`/runs/${id}/variables-diff`),
  cancelRun: (id: number | string) => post<Run>(`/runs/${id}/cancel`),
}
