import { useEffect, useMemo, useRef, useState } from 'react'
import { isFinal, type Run } from '../../api/models'
import type { PointSeries } from '../../charts/downsample'
import type { JobStatus } from '../../client'
import { useEventStream } from '../../streams/useEventStream'

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

interface Built {
  run: Run | null
  /** elapsed seconds by iteration, by variant index */
  points: Map<number, Map<number, number>>
  received: number
  duplicates: number
}

/**
 * Live results of a run over Server-Sent Events (streams/useEventStream.ts: resumed by Last-Event-ID
 * after a dropped connection). Iterations are kept once per (variant, iteration); a repeat is counted.
 */
export function useRunStream(runId: string, enabled: boolean, onFinal: () => void): LiveRun {
  const [view, setView] = useState<{ run: Run | null; series: PointSeries[]; received: number; duplicates: number }>({
    run: null,
    series: [],
    received: 0,
    duplicates: 0,
  })
  // what the events built since the last snapshot (a connection's first event), drawn at most every
  // RENDER_EVERY_MS
  const state = useRef<Built>({ run: null, points: new Map(), received: 0, duplicates: 0 })
  const renderTimer = useRef<number | undefined>(undefined)
  const onFinalRef = useRef(onFinal)
  useEffect(() => {
    onFinalRef.current = onFinal
  }, [onFinal])
  useEffect(() => () => window.clearTimeout(renderTimer.current), [runId, enabled])

  const handlers = useMemo(() => {
    const render = () => {
      window.clearTimeout(renderTimer.current)
      renderTimer.current = undefined
      const now = state.current
      setView({ ...buildLive(now), received: now.received, duplicates: now.duplicates })
    }
    const scheduleRender = () => {
      if (renderTimer.current === undefined) renderTimer.current = window.setTimeout(render, RENDER_EVERY_MS)
    }
    const addPoint = (variantIndex: number, iteration: number, elapsed: number) => {
      const now = state.current
      let byIteration = now.points.get(variantIndex)
      if (!byIteration) {
        byIteration = new Map()
        now.points.set(variantIndex, byIteration)
      }
      if (byIteration.has(iteration)) {
        now.duplicates += 1
      } else {
        now.received += 1
      }
      byIteration.set(iteration, elapsed)
    }
    return {
      onOpen: scheduleRender,
      on: {
        snapshot: (raw: unknown) => {
          const data = raw as { run: Run; points: [number, number, number][] }
          state.current = { run: data.run, points: new Map(), received: 0, duplicates: 0 }
          for (const [v, i, s] of data.points) addPoint(v, i, s)
          scheduleRender()
        },
        iteration: (raw: unknown) => {
          const data = raw as IterationEvent
          addPoint(data.variant_index, data.iteration, data.elapsed_s)
          const run = state.current.run
          if (run) run.current_variant = data.variant_index
          scheduleRender()
        },
        status: (raw: unknown) => {
          const data = raw as StatusEvent
          const run = state.current.run
          if (run) {
            if (data.status) run.status = data.status
            if (data.current_variant !== undefined) run.current_variant = data.current_variant
            if (data.error !== undefined) run.error = data.error
            if (data.progress !== undefined) run.progress = data.progress
          }
          if (data.status && isFinal(data.status)) {
            // now, not on the timer: onFinal refetches the run, the page stops streaming and the
            // clean-up would drop a render still pending (the last iterations)
            render()
            onFinalRef.current()
            return true
          }
          scheduleRender()
        },
      },
    }
  }, [])

  const stream = useEventStream(`/api/runs/${runId}/events`, enabled, handlers)
  const { received, duplicates } = view
  return {
    run: view.run,
    series: view.series,
    connected: stream.connected,
    stats: { received, duplicates, connections: stream.connections },
  }
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
