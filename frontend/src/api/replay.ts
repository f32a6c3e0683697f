// Datasets (SQL dumps) and replay runs: types and calls (backend: datasets/, replay/).
import { ApiError, formatDetail, post, request, send } from './client'

export interface TableLoad {
  schema: string
  name: string
  rows: number
  bytes: number
}

export interface DatasetLoad {
  version: string
  loaded_at: string
  reused: boolean
  elapsed_s: number
  rows_seen: number | null
  tables: TableLoad[]
}

export interface Dataset {
  id: number
  name: string
  sha256: string
  size_bytes: number
  compression: 'none' | 'gzip' | 'zstd'
  database: string
  loads: Record<string, DatasetLoad>
  created_at: string
}

export interface PlanStep {
  table: string
  access_type: string | null
  key: string | null
  rows: number | null
}

export interface Outcome {
  error_code: number | null
  error_message: string | null
  warnings: [string, number, string][]
  row_count: number | null
  checksum_ordered: string | null
  checksum_unordered: string | null
  plan: PlanStep[]
  plan_json: unknown
  plan_error: string | null
}

export interface StatementDiff {
  variant: string
  error: boolean
  warnings: boolean
  result: boolean
  ordering_only: boolean
  unordered_query: boolean
  plan: boolean
  breaks: boolean
}

export type ReplayGroup = 'breaks' | 'plan changes' | 'slower' | 'faster' | 'same'
export const REPLAY_GROUPS: ReplayGroup[] = ['breaks', 'plan changes', 'slower', 'faster', 'same']

export interface FingerprintReport {
  fingerprint_id: string
  fingerprint: string
  group: ReplayGroup
  median_s: Record<string, number | null>
  ratios: Record<string, { ratio: number | null; low: number | null; high: number | null; verdict: string | null }>
  statements: { sql: string; database: string | null; outcomes: Record<string, Outcome>; diffs: StatementDiff[] }[]
}

export interface ReplayReport {
  baseline: string
  variants: { name: string; version: string; loaded: { elapsed_s: number } | null; tables: TableLoad[] }[]
  groups: Record<ReplayGroup, number>
  exit_bits: number
  statements: number
  fingerprints: FingerprintReport[]
}

export interface Replay {
  id: number
  name: string
  dataset: string | null
  status: 'queued' | 'running' | 'succeeded' | 'failed'
  source_format: string
  variants: { name: string; target: string; preset: string }[]
  repeats: number
  sample: number
  allow_writes: boolean
  statements: number
  skipped_writes: { sql: string; kind: string; fingerprint: string }[]
  progress: Record<string, unknown> | null
  error: string | null
  created_at: string
  ended_at: string | null
  report: ReplayReport | null
}

export interface ReplayCreate {
  dataset: string
  queries: string
  variants: string[]
  repeats: number
  sample: number
  allow_writes: boolean
  name?: string
}

/** PUT the file as the raw body (streamed by the browser); onProgress gets bytes sent / total. */
export function uploadDataset(
  name: string,
  file: File,
  onProgress: (sent: number, total: number) => void,
): Promise<Dataset> {
  return new Promise((resolve, reject) => {
    // XMLHttpRequest, not fetch: only it reports upload progress.
    const xhr = new XMLHttpRequest()
    xhr.open('PUT', `/api/datasets/${encodeURIComponent(name)}`)
    xhr.setRequestHeader('Content-Type', 'application/octet-stream')
    xhr.withCredentials = true
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.total || file.size)
    xhr.onload = () => {
      let body: unknown
      try {
        body = JSON.parse(xhr.responseText)
      } catch {
        body = xhr.responseText
      }
      if (xhr.status === 201) resolve(body as Dataset)
      else {
        const detail = typeof body === 'object' && body !== null && 'detail' in body ? body.detail : body
        reject(new ApiError(xhr.status, formatDetail(detail) ?? `${xhr.status}`, detail))
      }
    }
    xhr.onerror = () => reject(new Error('Network error during the upload'))
    xhr.send(file)
  })
}

export const replayApi = {
  datasets: () => request<Dataset[]>('/datasets'),
  deleteDataset: (name: string) => send<Dataset>('DELETE', `/datasets/${encodeURIComponent(name)}`),
  replays: () => request<Replay[]>('/replays'),
  replay: (id: number | string) => request<Replay>(`/replays/${id}`),
  createReplay: (body: ReplayCreate) => post<Replay>('/replays', body),
}
