import { useMutation } from '@tanstack/react-query'
import { ErrorBox } from '../ErrorBox'
import { ShareLinkOnce } from '../ShareLinkOnce'

/** "Export CSV · JSON": `href` is the export's path without its query (?format= is added); the
 * links' test ids are `${testId}-csv` and `${testId}-json`. */
export function ExportLinks({ href, testId }: { href: string; testId: string }) {
  return (
    <>
      Export <a href={`${href}?format=csv`} data-testid={`${testId}-csv`}>CSV</a> ·{' '}
      <a href={`${href}?format=json`} data-testid={`${testId}-json`}>JSON</a>
    </>
  )
}

/** A share link's exports, without signing in: GET /api/public/{kind}/{token}/export as ExportLinks. */
export function SharedExport({ kind, token, testId }: { kind: string; token: string; testId: string }) {
  return (
    <p className="muted">
      <ExportLinks href={`/api/public/${kind}/${encodeURIComponent(token)}/export`} testId={testId} />
    </p>
  )
}

interface Share {
  /** Makes a read-only link; resolves to its UI path (shown this once: the API keeps its sha256). */
  make: () => Promise<string | null | undefined>
  /** The signed-in read says a link is live (its address no longer shown). */
  shared: boolean
  /** The link's test id; `${testId}-button` is the Share button's unless `buttonTestId` says. */
  testId: string
  buttonTestId?: string
}

/** A signed-in job page's tools line: its exports (ExportLinks) and, when `share` is given, its Share
 * button with the address it made (ShareLinkOnce); a refused share shown below. */
export function JobTools({ exportHref, testId, share }: { exportHref: string; testId: string; share?: Share }) {
  const made = useMutation({ mutationFn: async () => (share ? share.make() : null) })
  return (
    <>
      <p className="muted">
        <ExportLinks href={exportHref} testId={testId} />
        {share && (
          <>
            {' '}
            ·{' '}
            <button
              type="button"
              className="btn btn-secondary btn-small"
              data-testid={share.buttonTestId ?? `${share.testId}-button`}
              onClick={() => made.mutate()}
            >
              Share
            </button>{' '}
            <ShareLinkOnce path={made.data} shared={share.shared} testId={share.testId} />
          </>
        )}
      </p>
      <ErrorBox error={made.error} title="Share link" />
    </>
  )
}
