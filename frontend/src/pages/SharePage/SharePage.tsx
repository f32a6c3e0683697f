import { useQuery } from '@tanstack/react-query'
import { useParams } from 'react-router-dom'
import { isFinal } from '../../api/models'
import { ErrorBox } from '../../components/ErrorBox'
import { comparisonSeries } from '../../charts/comparisonSeries'
import { ComparisonTable } from '../../components/ComparisonTable'
import { IterationChart } from '../../components/IterationChart'
import { ReplayReportView } from '../../components/ReplayReport/ReplayReportView'
import { VariantSettingsList } from '../../components/ReplayReport/VariantSettingsList'
import { RunHeader } from '../../components/RunHeader/RunHeader'
import { SummaryTable } from '../../components/SummaryTable'
import { sharedQuery } from '../../queries/users'

/** A share link, read-only and without signing in: a run or a comparison. */
export function SharePage() {
  const { token = '' } = useParams()
  const shared = useQuery({
    ...sharedQuery(token),
    refetchInterval: (q) => {
      const run = q.state.data?.run?.run
      return run && !isFinal(run.status) ? 2000 : false
    },
  })
  if (!shared.data) {
    return (
      <div className="page" data-testid="share-page">
        {shared.error ? <ErrorBox error={shared.error} title="This link does not work" testId="share-error" /> : <p className="muted">Loading…</p>}
      </div>
    )
  }
  const { run, comparison, replay } = shared.data
  const replayReport = replay?.report ?? null
  return (
    <div className="page" data-testid="share-page">
      <div className="shared-banner">Shared read-only view</div>
      {run && (
        <>
          <RunHeader run={run.run} now={shared.dataUpdatedAt} readOnly />
          <IterationChart series={run.series} iterations={run.run.iterations} pngName={`run-${run.run.id}-iterations`} />
          <h2>Summary</h2>
          <SummaryTable rows={run.summary} />
        </>
      )}
      {replay && replayReport && (
        <>
          <h1>{replay.name}</h1>
          <p className="muted">
            Dataset {replay.dataset}, {replay.statements} statements, variants{' '}
            {replay.variants.map((v) => v.name).join(', ')} (baseline first).
          </p>
          <VariantSettingsList variants={replay.variants} />
          <ReplayReportView report={replayReport} />
        </>
      )}
      {comparison && (
        <>
          <h1>Comparison of runs {comparison.query.runs.map((r) => `#${r}`).join(', ')}</h1>
          <ComparisonTable comparison={comparison} />
          <IterationChart
            series={comparisonSeries(comparison)}
            iterations={Math.max(1, ...comparison.rows.map((r) => r.iterations + (comparison.query.warmup ?? 0)))}
          />
        </>
      )}
    </div>
  )
}
