import type { JobStatus } from '../client'

interface Props {
  status: JobStatus
  testId?: string
}

/** Coloured pill; its text content is exactly the status string. */
export function StatusBadge({ status, testId = 'run-status-badge' }: Props) {
  return (
    <span className={`badge badge-${status}`} data-testid={testId}>
      {status}
    </span>
  )
}
