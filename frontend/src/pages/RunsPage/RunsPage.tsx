import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router-dom'
import { ErrorBox } from '../../components/ErrorBox'
import { Pagination } from './Pagination'
import { FILTER_KEYS, toApi, type Filters } from './filters'
import { RunFilters } from './RunFilters'
import { RunsTable } from './RunsTable'
import { runsQuery } from '../../queries/runs'

const PAGE_SIZE = 20

export function RunsPage() {
  const [params, setParams] = useSearchParams()
  const navigate = useNavigate()
  const [selected, setSelected] = useState<Set<number>>(new Set())
  const toggle = (runId: number) =>
    setSelected((prev) => {
      const next = new Set(prev)
      if (next.has(runId)) next.delete(runId)
      else next.add(runId)
      return next
    })
  const rawOffset = Number(params.get('offset') ?? 0)
  const offset = Number.isInteger(rawOffset) && rawOffset > 0 ? rawOffset : 0
  const filters: Filters = {}
  for (const key of FILTER_KEYS) {
    const v = params.get(key)
    if (v) filters[key] = v
  }

  const runs = useQuery({
    ...runsQuery(PAGE_SIZE, offset, toApi(filters)),
    refetchInterval: 3000,
    placeholderData: keepPreviousData,
  })

  function update(next: Filters, newOffset: number) {
    const out: Record<string, string> = {}
    for (const [k, v] of Object.entries(next)) if (v) out[k] = String(v)
    if (newOffset > 0) out.offset = String(newOffset)
    setParams(out)
  }

  return (
    <div className="page">
      <div className="page-header">
        <h1>Runs</h1>
        <div className="toolbar">
          <button
            type="button"
            className="btn btn-secondary"
            data-testid="compare-selected"
            disabled={selected.size === 0}
            onClick={() => navigate(`/compare?runs=${[...selected].sort((a, b) => a - b).join(',')}`)}
          >
            Compare selected ({selected.size})
          </button>
          <Link to="/new" className="btn btn-primary" data-testid="new-run-button">
            New run
          </Link>
        </div>
      </div>
      <RunFilters value={filters} onChange={(next) => update(next, 0)} />
      <ErrorBox error={runs.error} title="Could not load runs" />
      {runs.data ? (
        <>
          <p className="muted" data-testid="runs-total">
            {runs.data.total} runs
          </p>
          <RunsTable runs={runs.data.items} now={runs.dataUpdatedAt} selected={selected} onToggle={toggle} />
          <Pagination total={runs.data.total} limit={PAGE_SIZE} offset={offset} onChange={(o) => update(filters, o)} />
        </>
      ) : (
        !runs.error && <p className="muted">Loading runs…</p>
      )}
    </div>
  )
}
