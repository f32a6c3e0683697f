// Replay reports and the dataset upload (backend: datasets/, replay/). The API types a replay's
// report as a free-form object (replay/compare.report_document); its shape is written here.
import type { DatasetRead as Dataset, ReplayRead } from '../client'
import { ApiError, formatDetail } from './client'

/** One table a dataset load wrote (also in DatasetRead.loads, which the API leaves free-form). */
export interface TableLoad {
  schema: string
  name: string
  rows: number
  bytes: number
}

/** DatasetRead.loads[target]: the dataset as loaded on one target (datasets/loader.py). */
export interface DatasetLoad {
  version: string
  loaded_at: string
  reused: boolean
  elapsed_s: number
  rows_seen: number | null
  tables: TableLoad[]
}

/** A dataset's loads by target, in the shape datasets/loader.py stores (free-form in the API). */
export function loadsOf(dataset: Dataset): Record<string, DatasetLoad> {
  return dataset.loads as Record<string, DatasetLoad>
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

/** A replay as the API reads it, its report narrowed to the document the report view reads. */
export type Replay = Omit<ReplayRead, 'report'> & { report: ReplayReport | null }

/** The report of a replay in the shape replay/compare.report_document writes (free-form in the API). */
export function reportOf(replay: ReplayRead): ReplayReport | null {
  return replay.report as ReplayReport | null
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
