import type { Capability } from '../../client'
import { TableHead } from '../../components/Table/Table'

/** Plain-language names of the capabilities the backend detects (targets/capabilities.py). */
const LABELS: Record<string, string> = {
  restart: 'Restart (RESTART, server comes back): cold runs',
  set_global: 'SET GLOBAL',
  alter_instance: 'ALTER INSTANCE (redo log off)',
  performance_schema: 'performance_schema ON',
  mutex_instruments: 'InnoDB mutex instruments enabled and timed',
  waits_consumer: 'Waits consumers enabled',
  file: 'FILE privilege and secure_file_priv',
  lab_database: "Tables in the lab's database",
}

/** One row per capability: yes/no and how it was found (or the server's own words). */
export function CapabilityTable({ checks }: { checks: Capability[] }) {
  return (
    <table className="data-table" data-testid="capability-table">
      <TableHead columns={['Capability', 'Available', 'How it was found']} />
      <tbody>
        {checks.map((c) => (
          <tr key={c.name} data-testid={`capability-${c.name}`}>
            <td>{LABELS[c.name] ?? c.name}</td>
            <td className={c.available ? 'verdict verdict-improvement' : 'verdict verdict-regression'}>
              {c.available ? 'yes' : 'no'}
            </td>
            <td className="small">{c.detail}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
