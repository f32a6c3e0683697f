import { useQuery } from '@tanstack/react-query'
import { Link } from 'react-router-dom'
import { targetsQuery } from '../queries/targets'

/** On a run page: which of the run's targets are existing servers, whose variants share that one
 *  server (each variant's SET GLOBAL settings are applied again at the start of its blocks). */
export function SharedServerNote({ targets }: { targets: string[] }) {
  const all = useQuery(targetsQuery())
  const existing = (all.data ?? []).filter((t) => t.provisioner === 'existing' && targets.includes(t.name))
  if (existing.length === 0) return null
  return (
    <p className="notice small" data-testid="shared-server-note">
      {existing.map((t, i) => (
        <span key={t.name}>
          {i > 0 && '; '}
          <Link to={`/targets/${encodeURIComponent(t.name)}`}>{t.name}</Link>
        </span>
      ))}{' '}
      {existing.length === 1 ? 'is an existing server' : 'are existing servers'}: the variants on one share that
      one server (the lab does not start, restart or stop it); each variant's SET GLOBAL settings are applied again
      at the start of its blocks, and put back when the run ends.
    </p>
  )
}
