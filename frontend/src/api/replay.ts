// Replays and the dataset upload (backend: datasets/, replay/). Every shape is the generated
// client's (src/client/types.gen.ts); this module adds the group order and the streamed upload.
import { ReplayGroup as ReplayGroupOrder } from '../client'
import type { DatasetRead as Dataset, FingerprintResult } from '../client'
import { ApiError, formatDetail } from './client'

export type ReplayGroup = FingerprintResult['group']
/** The groups in the report's order (OpenAPI ReplayGroup, from replay/groups.py GROUPS): "refused"
 * (writes a read-only replay did not run) comes apart, last. */
export const REPLAY_GROUPS: readonly ReplayGroup[] = Object.values(ReplayGroupOrder)

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
