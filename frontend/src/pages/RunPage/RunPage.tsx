import { useQuery } from '@tanstack/react-query'
import { Link, useParams } from 'react-router-dom'
import { ApiError, api } from '../../api/client'
import { isFinal } from '../../api/types'
import { ErrorBox } from '../../components/ErrorBox'
import { ProbePanels } from './components/ProbePanels'
import { IterationChart } from './IterationChart'
import { RunHeader } from './RunHeader'
import { StatementTable } from './StatementTable'
import { SummaryTable } from './SummaryTable'

const POLL_MS = 1000

export function RunPage() {
  const { id = '' } = useParams()
  const results = useQuery({
    queryKey: ['results', id],
    queryFn: () => api.results(id),
    // Poll while the run is live; stop once it is final (or the run doesn't exist).
    refetchInterval: (query) => {
      const data = query.state.data
      if (data && isFinal(data.run.status)) return false
      const err = query.state.error
      if (err instanceof ApiError && (err.status === 404 || err.status === 422)) return false
      return POLL_MS
    },
    refetchIntervalInBackground: true,
  })

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

  const { run, series, summary } = results.data
  return (
    <div className="page">
      <RunHeader run={run} now={results.dataUpdatedAt} />
      {results.error && <ErrorBox error={results.error} title="Refresh failed (showing last data)" />}
      <IterationChart series={series} iterations={run.iterations} />
      <h2>Summary</h2>
      <SummaryTable rows={summary} />
      <StatementTable runId={id} live={!isFinal(run.status)} />
      <ProbePanels runId={id} />
    </div>
  )
}
