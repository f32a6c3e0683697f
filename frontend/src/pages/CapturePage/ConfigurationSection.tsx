import { useState } from 'react'
import type { Configuration } from '../../client'
import { useCollapsedRows } from '../../components/CollapsedRows'
import { configurationCounts, configurationRows, type Shown } from './configuration'
import { EmptyRow, TableHead } from '../../components/Table/Table'

/** What the server says about its host (CPUs where visible, buffer pool): the facts a host-computed
 * default depends on. */
function HostFactsLine({ host }: { host: Configuration['host'] }) {
  return (
    <p className="run-meta" data-testid="capture-host">
      <span>host {host.hostname ?? 'not shown'}</span>
      {(host.os || host.machine) && (
        <span>
          {host.os ?? ''} {host.machine ?? ''}
        </span>
      )}
      <span>
        CPUs {host.cpus ?? 'unknown'} ({host.cpus_from})
      </span>
      <span>buffer pool {host.buffer_pool_mib == null ? 'unknown' : `${host.buffer_pool_mib.toLocaleString()} MiB`}</span>
    </p>
  )
}

const MARKS: Record<string, string> = { differs: 'differs', default: 'default', unknown: 'unknown', implied: 'implied' }

/** The captured global variables against the defaults of the lab's binary of that version: the
 * differing ones first (the team's own settings), filterable, collapsed past 20 rows; where no
 * binary or no default is known, said unknown. */
export function ConfigurationSection({ configuration }: { configuration: Configuration }) {
  const [shown, setShown] = useState<Shown>('differs')
  const [search, setSearch] = useState('')
  const counts = configurationCounts(configuration.variables)
  const rows = configurationRows(configuration.variables, shown, search)
  const { shown: visible, toggle } = useCollapsedRows(rows, 'configuration-more')
  const from = configuration.defaults_from
  return (
    <section id="capture-configuration" data-testid="capture-configuration">
      <h2>Configuration</h2>
      <p className="muted">
        {configuration.flavor} {configuration.version}
        {configuration.version_comment && ` (${configuration.version_comment})`}.{' '}
        {from ? (
          <span data-testid="capture-defaults-from">
            Defaults from the lab's {from.server} (target {from.target}, {from.match === 'exact' ? 'the same version' : 'the same series'}).
          </span>
        ) : (
          <span data-testid="capture-defaults-from">
            The lab has no binary of this series: every default is unknown.
          </span>
        )}{' '}
        {counts.differs} of {counts.all} variables differ from the default, {counts.unknown} unknown
        {counts.implied > 0 && `, ${counts.implied} implied by another setting or the host (not the team's)`}
        {counts.hostDependentDiffers > 0 &&
          ` (${counts.hostDependentDiffers} of the differing ones are computed from the host at start: the hardware may be the difference)`}
        .
      </p>
      <HostFactsLine host={configuration.host} />
      <div className="toolbar">
        <label className="small">
          Show{' '}
          <select style={{ width: 'auto' }} value={shown} onChange={(e) => setShown(e.target.value as Shown)} data-testid="configuration-shown">
            <option value="differs">differing from the default ({counts.differs})</option>
            <option value="unknown">default unknown ({counts.unknown})</option>
            <option value="all">all ({counts.all})</option>
          </select>
        </label>{' '}
        <input
          style={{ width: '16rem' }}
          type="search"
          placeholder="name or value"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          data-testid="configuration-search"
        />
      </div>
      <table className="data-table" data-testid="configuration-table">
        <TableHead columns={['Variable', 'Value', 'Default of the version', 'Mark']} />
        <tbody>
          {visible.map((v) => (
            <tr key={v.name} data-testid={`variable-${v.name}`}>
              <td className="mono">{v.name}</td>
              <td className="mono" style={{ wordBreak: 'break-all' }}>
                {v.value}
              </td>
              <td className="mono" style={{ wordBreak: 'break-all' }}>
                {v.default ?? <span className="muted">unknown</span>}
              </td>
              <td className={v.comparison === 'differs' ? 'verdict verdict-regression' : undefined}>
                {MARKS[v.comparison] ?? v.comparison}
                {v.comparison === 'implied' && (
                  <span className="muted small">
                    {' '}
                    ({v.implied_by?.length ? `by ${v.implied_by.join(', ')}` : `origin ${v.origin ?? 'unknown'}`})
                  </span>
                )}
                {v.host_dependent && <span className="muted small"> (host-computed)</span>}
              </td>
            </tr>
          ))}
          {rows.length === 0 && (
            <EmptyRow columns={4}>No variable to show.</EmptyRow>
          )}
        </tbody>
      </table>
      {toggle}
    </section>
  )
}
