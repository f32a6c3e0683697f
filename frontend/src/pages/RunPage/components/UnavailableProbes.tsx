import type { VariantProbes } from '../../../client'

/** Probes a variant's server could not give, with the server's reason (they are not shown as zero). */
export function UnavailableProbes({ variants }: { variants: VariantProbes[] }) {
  const missing = variants.flatMap((v) => v.unavailable.map((u) => ({ variant: v.variant, ...u })))
  if (missing.length === 0) return null
  return (
    <ul className="warning probe-unavailable" data-testid="probe-unavailable">
      {missing.map((m) => (
        <li key={`${m.variant}-${m.probe}`}>
          {m.variant}: {m.probe.replace('_', ' ')} unavailable ({m.reason})
        </li>
      ))}
    </ul>
  )
}
