import { useEffect, useRef, useState } from 'react'

/** Handles one named event's JSON data; true when it was the job's last (a final status): the
 * stream is then closed and not reopened. */
export type StreamHandler = (data: unknown, event: MessageEvent<string>) => boolean | void

export interface EventStreamHandlers {
  /** By event name (`snapshot`, `status`, ...); events without a handler only move the cursor. */
  on: Record<string, StreamHandler>
  /** Each connection opened, reconnects included. */
  onOpen?: () => void
}

export interface EventStream {
  /** A connection is open. */
  connected: boolean
  /** The last connection broke and none is open yet: the page falls back to polling. */
  failed: boolean
  /** Connections opened, reconnects included. */
  connections: number
}

/** Named events the job streams send (api/streaming.py); `cursor` only moves Last-Event-ID. */
const CURSOR_ONLY = ['cursor']

/**
 * A job's Server-Sent Events (GET /api/{runs,replays,attributions}/{id}/events, api/streaming.py),
 * resumed without a gap: the browser's EventSource resumes with Last-Event-ID after a dropped
 * connection; when the source closes after an error (a 5xx, the API restarting) it is opened again
 * here after RETRY_MS with the last id as ?last_event_id=. Handlers are read at each event (the
 * latest render's); the stream opens when `enabled` and `path` are set and ends at a handler's true.
 */
export function useEventStream(path: string, enabled: boolean, handlers: EventStreamHandlers): EventStream {
  const [state, setState] = useState<EventStream>({ connected: false, failed: false, connections: 0 })
  const handlersRef = useRef(handlers)
  useEffect(() => {
    handlersRef.current = handlers
  }, [handlers])

  useEffect(() => {
    if (!enabled) return
    let lastEventId = ''
    let source: EventSource | null = null
    let timer: number | undefined
    let stopped = false
    let connections = 0

    const open = () => {
      if (stopped) return
      const url = lastEventId ? `${path}?last_event_id=${encodeURIComponent(lastEventId)}` : path
      const es = new EventSource(url, { withCredentials: true })
      source = es
      es.onopen = () => {
        connections += 1
        setState({ connected: true, failed: false, connections })
        handlersRef.current.onOpen?.()
      }
      const names = [...Object.keys(handlersRef.current.on), ...CURSOR_ONLY]
      for (const name of new Set(names)) {
        es.addEventListener(name, (e: MessageEvent<string>) => {
          if (stopped) return
          if (e.lastEventId) lastEventId = e.lastEventId
          const handle = handlersRef.current.on[name]
          if (!handle) return
          if (handle(JSON.parse(e.data), e) === true) {
            stopped = true
            es.close()
            setState((s) => ({ ...s, connected: false, failed: false }))
          }
        })
      }
      es.onerror = () => {
        if (stopped) return
        setState((s) => ({ ...s, connected: false, failed: true }))
        // CONNECTING: the browser retries by itself with Last-Event-ID. CLOSED: retry here.
        if (es.readyState === EventSource.CLOSED) timer = window.setTimeout(open, RETRY_MS)
      }
    }

    open()
    return () => {
      stopped = true
      source?.close()
      window.clearTimeout(timer)
    }
  }, [path, enabled])

  return state
}

/** Milliseconds before a closed stream is opened again. */
export const RETRY_MS = 1000
