import type { ReactNode } from 'react'
import type { JobStatus } from '../../client'
import { StatusBadge } from '../StatusBadge'

interface Props {
  /** The job's name as its page heads it ("Run #3 nightly", "Find a fix: b against a"). */
  title: ReactNode
  status: JobStatus
  /** The status badge's test id (`run-status`, `replay-status`, ...). */
  statusTestId: string
  /** Under the title: what it ran on and when. */
  meta?: ReactNode
  /** Beside the status: the signed-in page's Cancel (none on a share page). */
  actions?: ReactNode
}

/** Every job page's header, signed in or shared: its title and facts on the left, its status and
 * cancel on the right. */
export function JobHeader({ title, status, statusTestId, meta, actions }: Props) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {meta}
      </div>
      <div className="run-actions">
        <StatusBadge status={status} testId={statusTestId} />
        {actions}
      </div>
    </div>
  )
}
