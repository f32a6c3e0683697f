import { comparisonSeries } from '../../charts/comparisonSeries'
import { ComparisonTable } from '../../components/ComparisonTable'
import { IterationChart } from '../../components/IterationChart'
import { SharedPage } from '../../components/JobPage/SharedPage'
import { ReplayReportView } from '../../components/ReplayReport/ReplayReportView'
import { VariantSettingsList } from '../../components/ReplayReport/VariantSettingsList'
import { RunHeader } from '../../components/RunHeader/RunHeader'
import { SummaryTable } from '../../components/SummaryTable'
import { sharedQuery } from '../../queries/users'

/** A share link, read-only and without signing in: a run, a replay (its verdicts and findings first, how
 * it was measured below) or a comparison. */
export function SharePage() {
  return (
    <SharedPage query={sharedQuery}>
      {({ run, comparison, replay }, _token, updatedAt) => (
        <>
          {run && (
            <>
              <RunHeader run={run.run} now={updatedAt} readOnly />
              <h2>Summary</h2>
              <SummaryTable rows={run.summary} />
              <IterationChart series={run.series} iterations={run.run.iterations} pngName={`run-${run.run.id}-iterations`} />
            </>
          )}
          {replay?.report && (
            <>
              <h1>{replay.name}</h1>
              <ReplayReportView
                report={replay.report}
                method={
                  <>
                    <p className="muted">
                      Dataset {replay.dataset}, {replay.statements} statements, variants{' '}
                      {replay.variants.map((v) => v.name).join(', ')} (baseline first).
                    </p>
                    <VariantSettingsList variants={replay.variants} />
                  </>
                }
              />
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
        </>
      )}
    </SharedPage>
  )
}
