/** A share link's address as the answer that made it gives it: the API keeps only the token's sha256,
 * so the address is shown this once (copy it now). Without a fresh address, `shared` says a link is
 * live: sharing again makes a new one and the old one stops. `testId` names the anchor; the note is
 * `${testId}-shared`. */
export function ShareLinkOnce({ path, shared, testId }: { path: string | null | undefined; shared: boolean; testId: string }) {
  if (path)
    return (
      // A plain anchor, not a router Link: the share view lives outside the signed-in layout.
      <a href={path} data-testid={testId} title="Shown once: copy it now">
        {window.location.origin}
        {path}
      </a>
    )
  if (shared)
    return (
      <span className="muted small" data-testid={`${testId}-shared`}>
        shared (its link was shown once, when made; Share makes a new one and the old one stops)
      </span>
    )
  return null
}
