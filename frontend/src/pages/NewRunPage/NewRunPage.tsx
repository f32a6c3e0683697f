import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { ErrorBox } from '../../components/ErrorBox'
import { ExperimentForm } from './ExperimentForm'

export function NewRunPage() {
  const targets = useQuery({ queryKey: ['targets'], queryFn: api.targets })
  const workloads = useQuery({ queryKey: ['workloads'], queryFn: api.workloads })

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
      <p className="muted">
        Define an experiment: one workload, run for N iterations on each variant, one after the other.
      </p>
      {body}
    </div>
  )
}
