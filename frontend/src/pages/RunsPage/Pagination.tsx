interface Props {
  total: number
  limit: number
  offset: number
  onChange: (offset: number) => void
}

export function Pagination({ total, limit, offset, onChange }: Props) {
  const first = total === 0 ? 0 : offset + 1
  const last = Math.min(offset + limit, total)
  const hasPrev = offset > 0
  const hasNext = offset + limit < total
  return (
    <div className="pagination" data-testid="pagination">
      <button
        type="button"
        className="btn btn-secondary btn-small"
        data-testid="page-prev"
        disabled={!hasPrev}
        onClick={() => onChange(Math.max(0, offset - limit))}
      >
        ← Prev
      </button>
      <span className="muted">
        {first}–{last} of {total}
      </span>
      <button
        type="button"
        className="btn btn-secondary btn-small"
        data-testid="page-next"
        disabled={!hasNext}
        onClick={() => onChange(offset + limit)}
      >
        Next →
      </button>
    </div>
  )
}
