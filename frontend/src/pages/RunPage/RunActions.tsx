import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from 'react-router-dom'
import { api } from '../../api/client'
import type { Run } from '../../api/models'
import { ErrorBox } from '../../components/ErrorBox'
import { runSharesQuery } from '../../queries/runs'
import { meQuery } from '../../queries/users'

/** Re-run, compare, export (CSV/JSON) and share links of a run. Share links are an operator's: a
 * viewer is shown none (GET /api/shares answers them 403: a token opens the run to anyone). */
export function RunActions({ run }: { run: Run }) {
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const me = useQuery({ ...meQuery(), retry: false })
  const sharer = me.data != null && me.data.role !== 'viewer'
  const shares = useQuery({ ...runSharesQuery(run.id), enabled: sharer })
  const rerun = useMutation({
    mutationFn: () => api.rerun(run.id),
    onSuccess: (again) => navigate(`/runs/${again.id}`),
  })
  const share = useMutation({
    mutationFn: () => api.createShare({ kind: 'run', run_id: run.id }),
    onSettled: () => void queryClient.invalidateQueries(runSharesQuery(run.id)),
  })
  const revoke = useMutation({
    mutationFn: (id: number) => api.revokeShare(id),
    onSettled: () => void queryClient.invalidateQueries(runSharesQuery(run.id)),
  })
  const active = (shares.data ?? []).filter((s) => s.revoked_at == null)
  return (
    <section>
      <div className="toolbar">
        <button type="button" className="btn btn-secondary btn-small" data-testid="run-rerun" onClick={() => rerun.mutate()}>
          Re-run
        </button>
        <a className="btn btn-secondary btn-small" href={`/compare?runs=${run.id}`} data-testid="run-compare">
          Compare…
        </a>
        <a className="btn btn-secondary btn-small" href={`/api/runs/${run.id}/export?format=csv`} data-testid="export-csv">
          CSV
        </a>
        <a className="btn btn-secondary btn-small" href={`/api/runs/${run.id}/export?format=json`} data-testid="export-json">
          JSON
        </a>
        {sharer && (
          <button type="button" className="btn btn-secondary btn-small" data-testid="share-create" onClick={() => share.mutate()}>
            Share link
          </button>
        )}
      </div>
      <ErrorBox error={rerun.error ?? share.error ?? revoke.error} title="Action failed" />
      {active.length > 0 && (
        <ul className="share-list" data-testid="share-list">
          {active.map((s) => (
            <li key={s.id}>
              {/* the address is in the answer that made the link only: the API keeps the token's sha256 */}
              {share.data?.id === s.id && share.data.path ? (
                <input readOnly size={60} value={`${window.location.origin}${share.data.path}`} data-testid="share-url" />
              ) : (
                <span className="muted small" data-testid="share-made">
                  link {s.id}, made {new Date(s.created_at).toLocaleString()} (its address was shown once)
                </span>
              )}
              <button type="button" className="btn btn-danger btn-small" data-testid="share-revoke" onClick={() => revoke.mutate(s.id)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
