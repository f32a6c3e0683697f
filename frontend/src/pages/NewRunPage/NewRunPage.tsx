import { useQuery } from '@tanstack/react-query'
import { ErrorBox } from '../../components/ErrorBox'
import { ExperimentForm } from './ExperimentForm'
import { targetsQuery } from '../../queries/targets'
import { workloadsQuery } from '../../queries/workloads'

export function NewRunPage() {
  const targets = useQuery(targetsQuery())
  const workloads = useQuery(workloadsQuery())

  let body
  if (targets.error || workloads.error) {
    body = (
      <>
        <ErrorBox error={targets.error} title="Could not load targets" />
        <ErrorBox error={workloads.error} title="Could not load workloads" />
      </>
    )
  } else if (!targets.data || !workloads.data) {
    body = <p className="muted">Loading targets and workloads…</p>
  } else if (targets.data.length === 0 || workloads.data.length === 0) {
    body = (
      <p className="warning">
        {targets.data.length === 0 ? 'No targets are configured. ' : ''}
        {workloads.data.length === 0 ? 'No workloads are registered.' : ''}
      </p>
    )
  } else {
    // Mounted only once both lists are known, so its initial state can use them.
    body = <ExperimentForm targets={targets.data} workloads={workloads.data} />
  }

  return (
    <div className="page">
      <h1>New run</h1>
      <p className="muted" data-testid="new-run-intro">
        Define an experiment: one workload, N iterations on each variant. By default the variants are interleaved: the
        iterations are cut into rounds, and every round runs one block of each variant in a shuffled order, so whatever
        the machine does during a round lands on every variant alike and the verdicts compare them round by round.
        Sequential runs each variant&apos;s iterations one after another instead.
      </p>
      {body}
    </div>
  )
}
