import { useState } from 'react'
import { JobStatus } from '../../client'
import type { Filters } from './filters'

const STATUSES = ['', ...Object.values(JobStatus)]
const SORTS: [string, string][] = [
  ['created_at', 'Created'],
  ['id', 'ID'],
  ['name', 'Name'],
  ['status', 'Status'],
  ['workload', 'Workload'],
]

interface Props {
  value: Filters
  onChange: (next: Filters) => void
}

/** Workload, target, status, date range, free text; sort column and direction. */
export function RunFilters({ value, onChange }: Props) {
  const [draft, setDraft] = useState<Filters>(value)
  const set = (key: keyof Filters, v: string) => setDraft({ ...draft, [key]: v || undefined })
  return (
    <form
      className="filters"
      data-testid="run-filters"
      onSubmit={(e) => {
        e.preventDefault()
        onChange(draft)
      }}
    >
      <label>
        Search
        <input data-testid="filter-q" placeholder="name or notes" value={draft.q ?? ''} onChange={(e) => set('q', e.target.value)} />
      </label>
      <label>
        Workload
        <input data-testid="filter-workload" value={draft.workload ?? ''} onChange={(e) => set('workload', e.target.value)} />
      </label>
      <label>
        Target
        <input data-testid="filter-target" placeholder="mysql-9.7" value={draft.target ?? ''} onChange={(e) => set('target', e.target.value)} />
      </label>
      <label>
        Status
        <select data-testid="filter-status" value={draft.status ?? ''} onChange={(e) => set('status', e.target.value)}>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s || 'any'}
            </option>
          ))}
        </select>
      </label>
      <label>
        From
        <input type="date" data-testid="filter-from" value={draft.created_from ?? ''} onChange={(e) => set('created_from', e.target.value)} />
      </label>
      <label>
        To
        <input type="date" data-testid="filter-to" value={draft.created_to ?? ''} onChange={(e) => set('created_to', e.target.value)} />
      </label>
      <label>
        Sort
        <select data-testid="filter-sort" value={draft.sort ?? 'created_at'} onChange={(e) => set('sort', e.target.value)}>
          {SORTS.map(([k, label]) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Order
        <select data-testid="filter-order" value={draft.order ?? 'desc'} onChange={(e) => set('order', e.target.value)}>
          <option value="desc">descending</option>
          <option value="asc">ascending</option>
        </select>
      </label>
      <button type="submit" className="btn btn-primary btn-small" data-testid="filter-apply">
        Apply
      </button>
    </form>
  )
}
