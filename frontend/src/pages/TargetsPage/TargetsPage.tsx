import { useQuery } from '@tanstack/react-query'
import { Link } from 'react-router-dom'
import { ErrorBox } from '../../components/ErrorBox'
import { AddExistingForm } from './AddExistingForm'
import { targetsQuery } from '../../queries/targets'
import { meQuery } from '../../queries/users'
import { TableHead } from '../../components/Table/Table'

/** Every target with a link to its page; admins can add an existing server. */
export function TargetsPage() {
  const me = useQuery(meQuery())
  const targets = useQuery(targetsQuery())
  return (
    <div className="page" data-testid="targets-page">
      <h1>Targets</h1>
      {targets.error && <ErrorBox error={targets.error} title="Could not load the targets" />}
      <table className="data-table">
        <TableHead columns={['Name', 'Kind', 'Flavor', 'Version', 'Disposable', 'Capabilities']} />
        <tbody>
          {(targets.data ?? []).map((t) => {
            const missing = t.capabilities?.checks.filter((c) => !c.available).map((c) => c.name) ?? []
            return (
              <tr key={t.id} data-testid="target-row">
                <td>
                  <Link to={`/targets/${encodeURIComponent(t.name)}`}>{t.name}</Link>
                </td>
                <td>{t.provisioner}</td>
                <td>{t.flavor}</td>
                <td className="mono">{t.version ?? '—'}</td>
                <td>{t.disposable ? 'yes' : 'no'}</td>
                <td className="small">
                  {t.capabilities ? (missing.length ? `no ${missing.join(', ')}` : 'all') : 'all (run by the lab)'}
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
      {me.data?.role === 'admin' && <AddExistingForm />}
    </div>
  )
}
