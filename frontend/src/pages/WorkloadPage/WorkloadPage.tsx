import { useQuery } from '@tanstack/react-query'
import { Link, useParams } from 'react-router-dom'
import { ErrorBox } from '../../components/ErrorBox'
import { GroupTable } from '../../components/GroupTable'
import { SweepCharts } from '../../components/SweepCharts'
import { ArticleRatios } from './ArticleRatios'
import { ContrastCases } from './ContrastCases'
import { MeasuredFigures } from './MeasuredFigures'
import { PublishedFigures } from './PublishedFigures'
import { runGroupsQuery, runResultsQuery, runsQuery } from '../../queries/runs'
import { experimentQuery, workloadQuery } from '../../queries/workloads'

const RECENT_RUNS = 100

/** A template: the article's set-up and published figures beside the latest succeeded run's. */
export function WorkloadPage() {
  const { slug = '' } = useParams()
  const workload = useQuery(workloadQuery(slug))
  const runs = useQuery(runsQuery(RECENT_RUNS, 0))
  const latest = runs.data?.items.find((r) => r.workload === slug && r.status === 'succeeded') ?? null
  // disabled until the latest run is known; 0 is never a run's id, so nothing is asked for it
  const groups = useQuery({ ...runGroupsQuery(latest?.id ?? 0, true), enabled: latest !== null })
  const hasCases = (workload.data?.cases.length ?? 0) > 0
  const results = useQuery({ ...runResultsQuery(latest?.id ?? 0), enabled: latest !== null && hasCases })
  const experiment = useQuery({
    ...experimentQuery(latest?.experiment_id ?? 0),
    enabled: latest !== null && hasCases,
  })

  if (!workload.data) {
    return (
      <div className="page">
        {workload.error ? <ErrorBox error={workload.error} title="Could not load the template" /> : <p className="muted">Loading…</p>}
      </div>
    )
  }
  const w = workload.data
  const options = Object.entries(w.server_options)
  return (
    <div className="page" data-testid="workload-page">
      <h1>{w.title}</h1>
      <p>
        Article: <em>{w.article}</em>
      </p>
      <p>{w.description}</p>
      <div className="two-columns">
        <section>
          <h2>The article</h2>
          <p data-testid="article-setup">{w.setup || 'No set-up recorded.'}</p>
          {options.length > 0 && (
            <p className="small">
              Server options: <code>{options.map(([k, v]) => (v === null ? k : `${k}=${v}`)).join(' ')}</code>
            </p>
          )}
          <PublishedFigures figures={w.published} />
        </section>
        <section>
          <h2>Measured here</h2>
          {latest ? (
            <>
              <p>
                Latest succeeded run: <Link to={`/runs/${latest.id}`}>#{latest.id} {latest.name}</Link> (policy{' '}
                {latest.policy})
              </p>
              {w.baseline_point && hasCases ? (
                experiment.data && results.data ? (
                  <ArticleRatios
                    cases={w.cases}
                    baselinePoint={w.baseline_point}
                    experiment={experiment.data}
                    summary={results.data.summary}
                  />
                ) : (
                  <p className="muted">Loading the latest run…</p>
                )
              ) : (
                <MeasuredFigures iterations={groups.data?.iterations ?? []} />
              )}
              {w.sweep && <SweepCharts points={groups.data?.groups ?? []} sweep={w.sweep} />}
              <GroupTable points={groups.data?.groups ?? []} />
            </>
          ) : (
            <p className="muted" data-testid="no-measured-run">
              No succeeded run of this template yet. <Link to="/new">Start one</Link>.
            </p>
          )}
        </section>
      </div>
      <ContrastCases cases={w.contrast_cases} runId={w.latest_run_id} />
    </div>
  )
}
