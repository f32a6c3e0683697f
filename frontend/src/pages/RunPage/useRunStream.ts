import { useEffect, useRef, useState } from 'react'
import { isFinal, type Run } from '../../api/models'
import type { PointSeries } from '../../charts/downsample'
import type { JobStatus } from '../../client'

/** What the page has received from /api/runs/{id}/events (the run page shows the counts as data-
 * attributes; browser tests and benches record the events themselves, Playwright-side). */
export interface StreamStats {
  /** Distinct (variant, iteration) points received: snapshot and live events. */
  received: number
  /** Iteration events for a point already held (kept once). */
  duplicates: number
  /** Connections opened, reconnects included. */
  connections: number
}

interface IterationEvent {
  variant_index: number
  variant: string
  iteration: number
  elapsed_s: number
  /** The worker's time.time() at XADD (seconds). */
  published_at: number
}

interface StatusEvent {
  status?: JobStatus
  current_variant?: number | null
  error?: string | null
  progress?: Run['progress']
}

export interface LiveRun {
  run: Run | null
  series: PointSeries[]
  connected: boolean
  stats: StreamStats
}

const RENDER_EVERY_MS = 200

/**
 * Live results of a run over Server-Sent Events. The browser's EventSource resumes with Last-Event-ID
 * after a dropped connection; a reconnect made here (the source closed after an error) passes the
 * last id as ?last_event_id=. Iterations are kept once per (variant, iteration); a repeat is counted.
 */
export function useRunStream(runId: string, enabled: boolean, onFinal: () => void): LiveRun {
  const [view, setView] = useState<{ run: Run | null; series: PointSeries[]; stats: StreamStats }>({
    run: null,
    series: [],
    stats: { received: 0, duplicates: 0, connections: 0 },
  })
  const [connected, setConnected] = useState(false)
  const state = useRef<{ run: Run | null; points: Map<number, Map<number, number>> }>({
    run: null,
    points: new Map(),
  })
  const onFinalRef = useRef(onFinal)
  useEffect(() => {
    onFinalRef.current = onFinal
  }, [onFinal])

  useEffect(() => {
    if (!enabled) return
    const log = { received: 0, duplicates: 0, connections: 0, lastEventId: '' }
    state.current = { run: null, points: new Map() }
    let source: EventSource | null = null
    let timer: number | undefined
    let renderTimer: number | undefined
    let stopped = false

    const render = () => {
      window.clearTimeout(renderTimer)
      renderTimer = undefined
      const { received, duplicates, connections } = log
      setView({ ...buildLive(state.current), stats: { received, duplicates, connections } })
    }
    const scheduleRender = () => {
      if (renderTimer === undefined) renderTimer = window.setTimeout(render, RENDER_EVERY_MS)
    }
    const addPoint = (variantIndex: number, iteration: number, elapsed: number) => {
      let byIteration = state.current.points.get(variantIndex)
      if (!byIteration) {
        byIteration = new Map()
        state.current.points.set(variantIndex, byIteration)
      }
      if (byIteration.has(iteration)) {
        log.duplicates += 1
      } else {
        log.received += 1
      }
      byIteration.set(iteration, elapsed)
    }
    const track = (e: MessageEvent) => {
      if (e.lastEventId) log.lastEventId = e.lastEventId
    }

    const open = () => {
      if (stopped) return
      const url = log.lastEventId
        ? `/api/runs/${runId}/events?last_event_id=${encodeURIComponent(log.lastEventId)}`
        : `/api/runs/${runId}/events`
      const es = new EventSource(url, { withCredentials: true })
      source = es
      es.onopen = () => {
        log.connections += 1
        setConnected(true)
        scheduleRender()
      }
      es.addEventListener('snapshot', (e: MessageEvent<string>) => {
        track(e)
        const data = JSON.parse(e.data) as { run: Run; points: [number, number, number][] }
        state.current.run = data.run
        for (const [v, i, s] of data.points) addPoint(v, i, s)
        scheduleRender()
      })
      es.addEventListener('iteration', (e: MessageEvent<string>) => {
        track(e)
        const data = JSON.parse(e.data) as IterationEvent
        addPoint(data.variant_index, data.iteration, data.elapsed_s)
        const run = state.current.run
        if (run) run.current_variant = data.variant_index
        scheduleRender()
      })
      es.addEventListener('cursor', track)
      es.addEventListener('status', (e: MessageEvent<string>) => {
        track(e)
        const data = JSON.parse(e.data) as StatusEvent
        const run = state.current.run
        if (run) {
          if (data.status) run.status = data.status
          if (data.current_variant !== undefined) run.current_variant = data.current_variant
          if (data.error !== undefined) run.error = data.error
          if (data.progress !== undefined) run.progress = data.progress
        }
        if (data.status && isFinal(data.status)) {
          // now, not on the timer: onFinal refetches the run, the page stops streaming and this
          // effect's clean-up would drop a render still pending (the last iterations)
          render()
          stopped = true
          es.close()
          setConnected(false)
          onFinalRef.current()
        } else {
          scheduleRender()
        }
      })
      es.onerror = () => {
        setConnected(false)
        // CONNECTING: the browser retries by itself with Last-Event-ID. CLOSED: retry here.
        if (es.readyState === EventSource.CLOSED && !stopped) timer = window.setTimeout(open, 1000)
      }
    }

    open()
    return () => {
      stopped = true
      source?.close()
      window.clearTimeout(timer)
      window.clearTimeout(renderTimer)
    }
  }, [runId, enabled])

  return { ...view, connected }
}

function buildLive(current: { run: Run | null; points: Map<number, Map<number, number>> }): {
  run: Run | null
  series: PointSeries[]
} {
  const run = current.run
  if (!run) return { run: null, series: [] }
  let done = 0
  const series: PointSeries[] = run.variants.map((variant, index) => {
    const byIteration = current.points.get(index) ?? new Map<number, number>()
    done += byIteration.size
    const points = [...byIteration.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([iteration, elapsed_s]) => ({ iteration, elapsed_s }))
    return { variant, variant_index: index, points }
  })
  return { run: { ...run, iterations_done: done }, series }
}
