import { useQuery } from '@tanstack/react-query'
import { ApiError } from '../../../api/client'
import { isFinal } from '../../../api/models'
import { useAfterPaint } from '../../../charts/afterPaint'
import { ErrorBox } from '../../../components/ErrorBox'
import { runProbesQuery } from '../../../queries/runs'
import { HitRateChart } from './HitRateChart'
import { MutexWaitsTable } from './MutexWaitsTable'
import { ServerClientTimeChart } from './ServerClientTimeChart'
import { UnavailableProbes } from './UnavailableProbes'

const POLL_MS = 1000

/** The server probes of a run: hit rate, server vs client time, top mutex waits; polls while live; drawn
 * after the first paint that follows their answer (charts/afterPaint.ts). */
export function ProbePanels({ runId }: { runId: number }) {
  const probes = useQuery({
    // the charts' width: a long run's probe series arrive downsampled to it (spikes kept)
    ...runProbesQuery(runId),
    refetchInterval: (query) => {
      const data = query.state.data
      if (data && isFinal(data.status)) return false
      const err = query.state.error
      if (err instanceof ApiError && (err.status === 404 || err.status === 422)) return false
      return POLL_MS
    },
    refetchIntervalInBackground: true,
  })
  // below the fold: drawn after the frame that shows the page's own charts, not in the same task
  const drawn = useAfterPaint(probes.data !== undefined)
  if (!probes.data || !drawn) {
    return probes.error ? <ErrorBox error={probes.error} title="Could not load probes" /> : null
  }
  const { variants } = probes.data
  return (
    <section className="probe-panels" data-testid="probe-panels">
      <h2>Server probes</h2>
      <p className="hint">
        Read from a separate connection before and after every iteration, outside the timed region.
      </p>
      <UnavailableProbes variants={variants} />
      <HitRateChart variants={variants} />
      <ServerClientTimeChart variants={variants} />
      <MutexWaitsTable variants={variants} />
    </section>
  )
}
