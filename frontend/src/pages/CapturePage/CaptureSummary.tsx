import type { CaptureRead } from '../../client'
import { captureSummary } from './captureSummary'

/** The line under a capture's header: what it read of the team's server, counted, each part a link
 * to its section below (configuration, workload, accounts, dataset). Nothing while it has none. */
export function CaptureSummary({ capture }: { capture: CaptureRead }) {
  const parts = captureSummary(capture)
  if (parts.length === 0) return null
  return (
    <p data-testid="capture-summary">
      {parts.map((part, i) => (
        <span key={part.section}>
          {i > 0 && ' · '}
          <a href={`#${part.section}`}>{part.text}</a>
        </span>
      ))}
    </p>
  )
}
