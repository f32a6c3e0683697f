import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { Link, useSearchParams } from 'react-router-dom'
import { api } from '../../api/client'
import { ErrorBox } from '../../components/ErrorBox'
import { Pagination } from './Pagination'
import { RunsTable } from './RunsTable'

const PAGE_SIZE = 20

export function RunsPage() {
  const [params, setParams] = useSearchParams()
  const rawOffset = Number(params.get('offset') ?? 0)
  const offset = Number.isInteger(rawOffset) && rawOffset > 0 ? rawOffset : 0

  const runs = useQuery({
    queryKey: ['runs', PAGE_SIZE, offset],
    queryFn: () => api.runs(PAGE_SIZE, offset),
    refetchInterval: 3000,
    placeholderData: keepPreviousData,
  })

  function goTo(newOffset: number) {
    setParams(newOffset > 0 ? { offset: String(newOffset) } : {})
  }

  return (
    <div className="page">
      <div className="page-header">
        <h1>Runs</h1>
        <Link to="/new" className="btn btn-primary" data-testid="new-run-button">
          New run
        </Link>
      </div>
      <ErrorBox error={runs.error} title="Could not load runs" />
      {runs.data ? (
        <>
          <RunsTable runs={runs.data.items} now={runs.dataUpdatedAt} />
          <Pagination
            total={runs.data.total}
            limit={PAGE_SIZE}
            offset={offset}
            onChange={goTo}
          />
        </>
      ) : (
        !runs.error && <p className="muted">Loading runs…</p>
      )}
    </div>
  )
}
