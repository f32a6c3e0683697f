import { useMutation } from '@tanstack/react-query'
import { ErrorBox } from '../../components/ErrorBox'

/** A share link of a capture or a check (as the run page's): "Share link" makes it, then its address
 * to copy, shown this once (the API keeps only the token's sha256), and Revoke (it stops at once; the
 * API answers anyone but the owner or an admin 403, shown). `shared`: the signed-in read says a link
 * is live (its address no longer shown). `testId` prefixes each element's test id. */
export function ShareControl({
  shared,
  pathOf,
  share,
  revoke,
  onChanged,
  testId,
}: {
  shared: boolean
  pathOf: (token: string) => string
  share: () => Promise<{ share_token?: string | null }>
  revoke: () => Promise<unknown>
  onChanged: () => void
  testId: string
}) {
  const create = useMutation({ mutationFn: share, onSettled: onChanged })
  const remove = useMutation({ mutationFn: revoke, onSettled: onChanged, onSuccess: () => create.reset() })
  const token = create.data?.share_token
  return (
    <div className="share-control">
      {shared || token ? (
        <ul className="share-list">
          <li>
            {token ? (
              <input readOnly size={60} value={`${window.location.origin}${pathOf(token)}`} data-testid={`${testId}-url`} />
            ) : (
              <span className="muted small" data-testid={`${testId}-shared`}>
                shared (its link was shown once, when made)
              </span>
            )}
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
