import { useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { isFinal, type Run } from '../../api/models'
import { CancelButton } from '../JobPage/CancelButton'
import { JobHeader } from '../JobPage/JobHeader'
import { formatDateTime, formatDuration, formatSeconds } from '../../format'
import { RUN_LISTS_KEY, runResultsQuery } from '../../queries/runs'
import { runProgress, runTiming } from './progress'

interface Props {
  run: Run
  now: number
  /** Shared (read-only) view: no cancel button. */
  readOnly?: boolean
}

export function RunHeader({ run, now, readOnly = false }: Props) {
  const queryClient = useQueryClient()
  const final = isFinal(run.status)
  const p = runProgress(run)
  const pct = Math.round(p.fraction * 100)
  const timing = runTiming(run, now)

  return (
    <section className="run-header">
      <JobHeader
        title={
          <>
            <span className="muted">Run #{run.id}</span> <span data-testid="run-name">{run.name}</span>
          </>
        }
        status={run.status}
        statusTestId="run-status"
        meta={
          <div className="run-meta">
            <span>
              Workload <span className="mono">{run.workload}</span>
            </span>
            <span>Created {formatDateTime(run.created_at)}</span>
            {run.started_at && <span>Started {formatDateTime(run.started_at)}</span>}
            {run.started_at && <span>Duration {formatDuration(run.started_at, run.finished_at, now)}</span>}
          </div>
        }
        actions={
          !final &&
          !readOnly && (
            <CancelButton
              cancel={() => api.cancelRun(run.id)}
              onSettled={() => {
                void queryClient.invalidateQueries(runResultsQuery(run.id))
                void queryClient.invalidateQueries({ queryKey: RUN_LISTS_KEY })
              }}
              testId="run-cancel"
            />
          )
        }
      />

      {run.error != null && (
        <div className="error-box" role="alert">
          <div className="error-title">Error</div>
          <pre className="error-message" data-testid="run-error">
            {run.error}
          </pre>
        </div>
      )}

      <div className="progress">
        <div className="progress-line" data-testid="run-progress">
          {p.round != null
            ? `round ${p.round} of ${p.rounds} · variant ${p.variant} of ${p.variants}`
            : `variant ${p.variant} of ${p.variants} · iteration ${p.iteration} of ${p.iterations}`}
          <span className="muted">
            {' '}
            ({run.iterations_done} / {run.iterations_total} iterations, {pct}%)
          </span>
          {timing.elapsed != null && (
            <span className="muted" data-testid="run-timing">
              {' '}
              · elapsed {formatSeconds(timing.elapsed)}
              {timing.remaining != null && ` · about ${formatSeconds(timing.remaining)} left`}
            </span>
          )}
        </div>
        <div
          className={`progress-bar progress-${run.status}`}
          role="progressbar"
          aria-valuemin={0}
          aria-valuemax={run.iterations_total}
          aria-valuenow={run.iterations_done}
          data-testid="run-progress-bar"
        >
          <div className="progress-fill" style={{ width: `${pct}%` }} />
        </div>
      </div>
    </section>
  )
}
