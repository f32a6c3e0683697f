import { Link } from 'react-router-dom'
import type { Workload } from '../../api/models'

export function WorkloadInfo({ workload }: { workload: Workload }) {
  const isUrl = /^https?:\/\//.test(workload.article)
  return (
    <div className="workload-info" data-testid="workload-info">
      <div className="workload-title">{workload.title}</div>
      {workload.article && (
        <div className="workload-article">
          Article:{' '}
          {isUrl ? (
            <a href={workload.article} target="_blank" rel="noreferrer">
              {workload.article}
            </a>
          ) : (
            <em>{workload.article}</em>
          )}
        </div>
      )}
      <p className="workload-description">{workload.description}</p>
      {workload.setup && <p className="muted small">Article set-up: {workload.setup}</p>}
      <Link to={`/workloads/${workload.slug}`} data-testid="workload-page-link">
        Template page: the article's figures beside the latest run
      </Link>
    </div>
  )
}
