import { useMutation } from '@tanstack/react-query'
import { ErrorBox } from '../../components/ErrorBox'

/** A share link of a capture or a check (as the run page's): "Share link" makes it (once: the same
 * token after), then its address to copy and Revoke (it stops at once; the API answers anyone but
 * the owner or an admin 403, shown). `testId` prefixes each element's test id. `token` is what the
 * signed-in read shows (null: none, or a viewer, who hands no link on). */
export function ShareControl({
  token,
  pathOf,
  share,
  revoke,
  onChanged,
  testId,
}: {
  token: string | null | undefined
  pathOf: (token: string) => string
  share: () => Promise<unknown>
  revoke: () => Promise<unknown>
  onChanged: () => void
  testId: string
}) {
  const create = useMutation({ mutationFn: share, onSettled: onChanged })
  const remove = useMutation({ mutationFn: revoke, onSettled: onChanged })
  return (
    <div className="share-control">
      {token ? (
        <ul className="share-list">
          <li>
            <input readOnly size={60} value={`${window.location.origin}${pathOf(token)}`} data-testid={`${testId}-url`} />
            <button
              type="button"
              className="btn btn-danger btn-small"
              data-testid={`${testId}-revoke`}
              disabled={remove.isPending}
              onClick={() => remove.mutate()}
            >
              Revoke
            </button>
          </li>
        </ul>
      ) : (
        <button
          type="button"
          className="btn btn-secondary btn-small"
          data-testid={`${testId}-create`}
          disabled={create.isPending}
          onClick={() => create.mutate()}
        >
          Share link
        </button>
      )}
      <ErrorBox error={create.error ?? remove.error} title="Share link" />
    </div>
  )
}
