import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useState } from 'react'
import { Link, useParams } from 'react-router-dom'
import { api } from '../../api/client'
import { isFinal } from '../../api/types'
import { ErrorBox } from '../../components/ErrorBox'
import { IterationChart } from './IterationChart'
import { RunActions } from './RunActions'
import { RunHeader } from './RunHeader'
import { RunNotes } from './RunNotes'
import { RunVerdicts } from './RunVerdicts'
import { liveSummary } from './liveSummary'
import { SummaryTable } from './SummaryTable'
import { useRunStream } from './useRunStream'

/**
 * A run: header with progress, the iteration chart (live over SSE while the run is not final, else the
 * stored, server-downsampled series), the summary, the verdicts, notes and actions.
 * Charts are separate components so further chart sections (e.g. probes) sit beside IterationChart.
 */
export function RunPage() {
  const { id = '' } = useParams()
  const queryClient = useQueryClient()
  const results = useQuery({ queryKey: ['results', id], queryFn: () => api.results(id) })
  const live = results.data != null && !isFinal(results.data.run.status)
  const onFinal = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: ['results', id] })
    void queryClient.invalidateQueries({ queryKey: ['compare'] })
  }, [queryClient, id])
  const stream = useRunStream(id, live, onFinal)
  const now = useNow(live)

  if (!results.data) {
    return (
      <div className="page">
        {results.error ? (
          <>
            <h1>Run #{id}</h1>
            <ErrorBox error={results.error} title="Could not load run" />
            <p>
              <Link to="/runs">Back to runs</Link>
            </p>
          </>
        ) : (
          <p className="muted">Loading run #{id}…</p>
        )}
      </div>
    )
  }

  const useLive = live && stream.run != null
  const run = useLive && stream.run ? stream.run : results.data.run
  const series = useLive ? stream.series : results.data.series
  const received = window.__upgradelabStream?.[id]
  return (
    <div
      className="page"
      data-testid="run-page"
      data-live={String(live)}
      data-stream-connected={String(stream.connected)}
      data-stream-received={String(received?.received.length ?? 0)}
      data-stream-duplicates={String(received?.duplicates ?? 0)}
    >
      <RunHeader run={run} now={now} />
      <RunActions run={run} />
      <IterationChart series={series} iterations={run.iterations} pngName={`run-${run.id}-iterations`} />
      <h2>Summary</h2>
      <SummaryTable rows={useLive ? liveSummary(series) : results.data.summary} />
      {isFinal(run.status) && <RunVerdicts runId={run.id} />}
      <RunNotes run={run} />
    </div>
  )
}

function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!ticking) return
    const timer = window.setInterval(() => setNow(Date.now()), 1000)
    return () => window.clearInterval(timer)
  }, [ticking])
  return now
}
