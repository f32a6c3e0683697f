import { useQuery, useQueryClient, type QueryKey, type UseQueryOptions } from '@tanstack/react-query'
import { useCallback, type ReactNode } from 'react'
import { isFinal } from '../../api/models'
import type { JobStatus } from '../../client'
import { useJobStream } from '../../streams/useJobStream'
import { ErrorBox } from '../ErrorBox'
import { CancelButton } from './CancelButton'
import { JobTools } from './JobTools'

/** A job's signed-in read (GET /api/<kind>/{id}) followed over its events (`eventsPath`, GET
 * /api/<kind>/{id}/events, streams/useJobStream.ts) while it is not final: its status and progress
 * move without polling. `live`: loaded and not final yet; `refresh`: read it again (after a cancel). */
export function useJob<T extends { status: JobStatus }, K extends QueryKey>(
  options: UseQueryOptions<T, Error, T, K> & { queryKey: K },
  eventsPath: string,
) {
  const found = useQuery(options)
  const live = found.data !== undefined && !isFinal(found.data.status)
  const stream = useJobStream(eventsPath, live, options.queryKey, isFinal)
  const queryClient = useQueryClient()
  const keyText = JSON.stringify(options.queryKey)
  const refresh = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: JSON.parse(keyText) as QueryKey }),
    [queryClient, keyText],
  )
  return { found, live, stream, refresh }
}

/** What the shell needs of a kind for its signed-in controls. */
export interface JobControlsOf {
  /** The test ids' prefix: `${testId}-cancel`, `-csv`, `-json`, `-share` (the link), `-share-button`. */
  testId: string
  /** The kind's API path (`/api/attributions`): its export is `${apiPath}/{id}/export`. */
  apiPath: string
  /** POST its cancel (202 once asked). */
  cancel: (id: number) => Promise<unknown>
  /** Make a read-only link; resolves to its UI path (shown once). */
  share: (id: number) => Promise<string | null | undefined>
  /** The share link's test id when it is not `${testId}-share`. */
  shareTestId?: string
}

/** A job's Cancel (while `live`) and its tools line (exports, share), as the kind's view places them
 * (its `actions` beside the status, its `tools` under the description). */
export function jobControls(kind: JobControlsOf, job: { id: number; shared?: boolean | null }, live: boolean, refresh: () => void) {
  return {
    actions: live && <CancelButton cancel={() => kind.cancel(job.id)} onSettled={refresh} testId={`${kind.testId}-cancel`} />,
    tools: (
      <JobTools
        exportHref={`${kind.apiPath}/${job.id}/export`}
        testId={kind.testId}
        share={{
          make: () => kind.share(job.id),
          shared: job.shared ?? false,
          testId: kind.shareTestId ?? `${kind.testId}-share`,
          buttonTestId: `${kind.testId}-share-button`,
        }}
      />
    ),
  }
}

/** The UI path of a share made as a token on the job's row (attributions, fix searches). */
export async function sharedAt(made: Promise<{ share_token?: string | null }>, pathOf: (token: string) => string) {
  const token = (await made).share_token
  return token ? pathOf(token) : null
}

/** What a frame needs of a read: its data once loaded, or its error (a TanStack Query result). */
export interface Loaded<T> {
  data: T | undefined
  error: unknown
}

interface Props<T> {
  found: Loaded<T>
  /** What the page shows, for its error's title ("Could not load the capture"). */
  noun: string
  testId?: string
  /** data-* attributes of the frame (the run page's stream figures, read by the live browser tests). */
  attributes?: { [name: `data-${string}`]: string }
  /** The loaded job's page. */
  children: (data: T) => ReactNode
}

/** Every job page's frame: "Loading…", then the job (`children`), or why it could not be read (a
 * 404 for an unknown id, a 403). */
export function JobPage<T>({ found, noun, testId, attributes, children }: Props<T>) {
  const data = found.data
  return (
    <div className="page" data-testid={testId} {...attributes}>
      {data !== undefined ? (
        children(data)
      ) : found.error ? (
        <ErrorBox error={found.error} title={`Could not load the ${noun}`} />
      ) : (
        <p className="muted">Loading…</p>
      )}
    </div>
  )
}
