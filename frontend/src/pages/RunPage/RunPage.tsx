import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo, useState } from 'react'
import { Link, useParams } from 'react-router-dom'
import { isFinal } from '../../api/models'
import { toColumns } from '../../charts/downsample'
import { JobPage } from '../../components/JobPage/JobPage'
import { GroupTable } from '../../components/GroupTable'
import { IterationChart } from '../../components/IterationChart'
import { RunHeader } from '../../components/RunHeader/RunHeader'
import { SharedServerNote } from '../../components/SharedServerNote'
import { SummaryTable } from '../../components/SummaryTable'
import { SweepCharts } from '../../components/SweepCharts'
import { COMPARE_KEY } from '../../queries/compare'
import { RESULTS_FRESH_MS, runGroupsQuery, runResultsQuery } from '../../queries/runs'
import { workloadsQuery } from '../../queries/workloads'
import { PreparingBanner } from './components/PreparingBanner'
import { QueuedNote } from '../../components/QueuedNote'
import { ProbePanels } from './components/ProbePanels'
import { RunContextPanel } from './components/RunContextPanel'
import { liveSummary } from './liveSummary'
import { RunActions } from './RunActions'
import { RunContrasts } from './RunContrasts'
import { RunNotes } from './RunNotes'
import { RunVerdicts } from './RunVerdicts'
import { StatementTable } from './StatementTable'
import { useRunStream } from './useRunStream'

/**
 * A run on the job pages' frame (JobPage: loading, then the run or why it could not be read), its
 * answer first: header with progress and actions, then (a finished run) the verdicts (ratios
 * with intervals, A/A floor, then the rounds chart), the summary, the iteration chart (live over SSE
 * while the run is not final, else the stored, server-downsampled series), the contrasts and the
 * per-statement medians; then how it ran: the context (versions, host, the schedule's rounds and the
 * variables diff, each collapsed past 20 with its count), probes and notes.
 * Charts are separate components so further chart sections (e.g. probes) sit beside IterationChart.
 */
const GROUPS_POLL_MS = 2000

export function RunPage() {
  const { id = '' } = useParams()
  const runId = Number(id)
  const queryClient = useQueryClient()
  const results = useQuery({ ...runResultsQuery(runId), staleTime: RESULTS_FRESH_MS })
  const live = results.data != null && !isFinal(results.data.run.status)
  const onFinal = useCallback(() => {
    void queryClient.invalidateQueries(runResultsQuery(runId))
    void queryClient.invalidateQueries({ queryKey: COMPARE_KEY })
  }, [queryClient, runId])
  const stream = useRunStream(id, live, onFinal)
  // The live columns once per stream render (at most every 200 ms, when points arrived), not on every
  // clock tick or refetch: the iteration chart (memo) then redraws only when its points change. A live
  // page redrew its chart about 25 times a second (~0.3 CPU-s a second in the browser).
  const liveSeries = useMemo(() => toColumns(stream.series), [stream.series])
  const now = useNow(live)
  const groups = useQuery({
    // the medians only: the page draws no single iteration from here (a long run is 80,000 of them)
    ...runGroupsQuery(runId, false),
    enabled: results.data !== undefined,
    // sweeps and group medians: refreshed while the run is live (iterations arrive over SSE)
    refetchInterval: live ? GROUPS_POLL_MS : false,
  })
  const workloads = useQuery(workloadsQuery())

  const sweepOf = (workload: string) => workloads.data?.find((w) => w.slug === workload)?.sweep ?? null
  const points = groups.data?.groups ?? []
  const useLive = live && stream.run != null
  return (
    <JobPage
      found={results}
      noun="run"
      testId="run-page"
      attributes={{
        'data-live': String(live),
        'data-stream-connected': String(stream.connected),
        'data-stream-received': String(stream.stats.received),
        'data-stream-duplicates': String(stream.stats.duplicates),
        'data-stream-connections': String(stream.stats.connections),
      }}
    >
      {(data) => {
        const run = useLive && stream.run ? stream.run : data.run
        const sweep = sweepOf(run.workload)
        return (
          <>
            <RunHeader run={run} now={now} />
            <SharedServerNote targets={run.targets ?? []} />
            <RunActions run={run} />
            {run.progress && !isFinal(run.status) && <PreparingBanner progress={run.progress} />}
            {run.status === 'queued' && <QueuedNote kind="run" id={run.id} />}
            {isFinal(run.status) && <RunVerdicts runId={run.id} />}
            <h2>Summary</h2>
            <SummaryTable rows={useLive ? liveSummary(stream.series) : data.summary} />
            <IterationChart
              series={useLive ? liveSeries : data.series}
              iterations={Math.round(run.iterations_total / Math.max(1, run.variants.length))}
              pngName={`run-${run.id}-iterations`}
            />
            {sweep && <SweepCharts points={points} sweep={sweep} />}
            <GroupTable points={points} />
            <p className="muted small">
              Cold/warm policy: {run.policy}.{' '}
              <Link to={`/workloads/${run.workload}`}>Template page with the article&apos;s figures</Link>
            </p>
            {isFinal(run.status) && <RunContrasts runId={run.id} contrasts={data.contrasts} />}
            <StatementTable runId={runId} live={!isFinal(run.status)} />
            {isFinal(run.status) && <RunContextPanel runId={run.id} />}
            <ProbePanels runId={runId} />
            <RunNotes run={run} />
          </>
        )
      }}
    </JobPage>
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
