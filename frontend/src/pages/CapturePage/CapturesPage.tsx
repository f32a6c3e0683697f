import { Link } from 'react-router-dom'
import { CapturesTable } from '../../components/CapturesTable'

/** /captures: every capture, newest first. */
export function CapturesPage() {
  return (
    <div className="page">
      <div className="page-header">
        <h1>Captures</h1>
      </div>
      <p className="muted">
        A team's server as the lab read it: configuration, accounts, workload. Start one from a target's page (
        <Link to="/targets">Targets</Link>).
      </p>
      <CapturesTable />
    </div>
  )
}
