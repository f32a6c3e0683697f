import { useQuery, type QueryKey, type UseQueryOptions } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { isFinal } from '../../api/models'
import type { JobStatus } from '../../client'
import { useJobStream } from '../../streams/useJobStream'
import { ErrorBox } from '../ErrorBox'

/** A job's signed-in read (GET /api/<kind>/{id}) followed over its events (`eventsPath`, GET
 * /api/<kind>/{id}/events, streams/useJobStream.ts) while it is not final: its status and progress
 * move without polling. `live`: loaded and not final yet. */
export function useJob<T extends { status: JobStatus }, K extends QueryKey>(
  options: UseQueryOptions<T, Error, T, K> & { queryKey: K },
  eventsPath: string,
) {
  const found = useQuery(options)
  const live = found.data !== undefined && !isFinal(found.data.status)
  const stream = useJobStream(eventsPath, live, options.queryKey, isFinal)
  return { found, live, stream }
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
  /** The loaded job's page. */
  children: (data: T) => ReactNode
}

/** Every job page's frame: "Loading…", then the job (`children`), or why it could not be read (a
 * 404 for an unknown id, a 403). */
export function JobPage<T>({ found, noun, testId, children }: Props<T>) {
  const data = found.data
  return (
    <div className="page" data-testid={testId}>
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
