import { Link } from 'react-router-dom'

/** The job another job came from ("run 12", "replay 4"): a link to its page when signed in
 * (`linked`), its name as text on a share link (whose reader cannot open a signed-in page). */
export function OriginLink({ to, linked, testId, text }: { to: string; linked: boolean; testId: string; text: string }) {
  return linked ? (
    <Link to={to} data-testid={testId}>
      {text}
    </Link>
  ) : (
    <span data-testid={testId}>{text}</span>
  )
}
