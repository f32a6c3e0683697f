import type { ReactNode } from 'react'
import type { CheckRead } from '../../client'
import { isFinal } from '../../api/models'
import { ErrorBox } from '../../components/ErrorBox'
import { CancelButton } from '../../components/JobPage/CancelButton'
import { StatusBadge } from '../../components/StatusBadge'
import { formatDateTime } from '../../format'
import type { Finding as OrderedFinding } from '../../client'
import { useCollapsedRows } from '../../components/CollapsedRows'
import { HASH_TARGET, useHashId, useScrollToHash } from '../../components/HashTarget'
import {
  checkHeadline,
  findingGroups,
  orderedGroups,
  orderedHeadline,
  orderedOf,
  QUIET,
  trialLine,
  type Finding,
  type FindingGroup,
  type OrderedGroup,
} from './findings'
import { hostsLine, hostsUse } from './teamHost'
import { TableHead } from '../../components/Table/Table'

/** Fields of CheckRead this view shows itself; any other list of objects the check carries (its
 * findings grow) is shown as a plain table, but for the lists `ordered` already holds. */
const SHOWN = new Set(['findings', 'account_findings', 'ordered'])

function FindingRow({ finding }: { finding: Finding }) {
  if (finding.kind === 'option') {
    const f = finding.finding
    return (
      <tr data-testid={`finding-${f.name}`}>
        <td className="mono">
          {f.line ?? f.name}
          {f.shown && <div className="muted small">the team's server shows {f.shown}</div>}
        </td>
        <td>{f.outcome}</td>
        <td>
          <pre className="mono small" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', margin: 0 }}>
            {f.words}
          </pre>
        </td>
      </tr>
    )
  }
  const f = finding.finding
  return (
    <tr data-testid={`account-finding-${f.plugin}`}>
      <td className="mono">
        {f.plugin}: {f.accounts.join(', ')}
      </td>
      <td>{f.outcome}</td>
      <td>{f.words}</td>
    </tr>
  )
}

/** Lists of objects on the check this view does not know (rendered as they come); with `ordered`
 * (which holds every *_findings list in one order) only lists of another name. */
function OtherFindings({ check, withOrdered }: { check: CheckRead; withOrdered: boolean }) {
  const extra = Object.entries(check as unknown as Record<string, unknown>).filter(
    ([key, value]) =>
      !SHOWN.has(key) &&
      !(withOrdered && key.endsWith('_findings')) &&
      Array.isArray(value) && value.length > 0 && value.every((row) => typeof row === 'object' && row !== null),
  ) as [string, Record<string, unknown>[]][]
  return extra.map(([key, rows]) => {
    const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))]
    return (
      <div key={key} data-testid={`check-extra-${key}`}>
        <h4>{key.replaceAll('_', ' ')}</h4>
        <table className="data-table">
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c}>{c.replaceAll('_', ' ')}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i}>
                {columns.map((c) => (
                  <td key={c} className="small">
                    {typeof row[c] === 'object' && row[c] !== null ? JSON.stringify(row[c]) : String(row[c] ?? '')}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )
  })
}

function OrderedRow({ finding }: { finding: OrderedFinding }) {
  return (
    <tr data-testid={`ordered-${finding.kind}`}>
      <td>{finding.kind}</td>
      <td className="mono" style={{ wordBreak: 'break-all' }}>
        {finding.subject}
      </td>
      <td data-testid="finding-action">{finding.action ?? ''}</td>
      <td className="mono small" style={{ wordBreak: 'break-all' }}>
        {finding.outcome}
      </td>
      <td>
        <details className="small">
          <summary className="mono" style={{ wordBreak: 'break-all' }}>
            {finding.evidence.split('\n')[0].slice(0, 160)}
          </summary>
          <pre className="mono small" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', margin: 0 }}>
            {finding.evidence}
          </pre>
        </details>
      </td>
    </tr>
  )
}

/** A group's line: its title, how many it holds, what it means for the upgrade. */
function GroupSummary({ title, count, meaning }: { title: string; count: number; meaning: string }) {
  return (
    <summary>
      <strong>{title}</strong> ({count}) <span className="muted small">{meaning}</span>
    </summary>
  )
}

/** One severity's findings (the API's order), collapsed past COLLAPSED_ROWS with their count. */
function SeverityGroup({ group }: { group: OrderedGroup }) {
  const { shown, toggle } = useCollapsedRows(group.findings, `check-more-${group.key}`)
  return (
    <details open data-testid={`check-severity-${group.key}`}>
      <GroupSummary title={group.title} count={group.findings.length} meaning={group.meaning} />
      <table className="data-table">
        <TableHead columns={['Kind', 'What', 'What to do', 'Outcome', 'Evidence']} />
        <tbody>
          {shown.map((f, i) => (
            <OrderedRow key={i} finding={f} />
          ))}
        </tbody>
      </table>
      {toggle}
    </details>
  )
}

/** A group of the page's own grouping (settings and accounts). */
function Group({ group }: { group: FindingGroup }) {
  return (
    <details open={!QUIET.has(group.key) || group.key === 'not-tried'} data-testid={`check-group-${group.key}`}>
      <GroupSummary title={group.title} count={group.findings.length} meaning={group.meaning} />
      <table className="data-table">
        <TableHead columns={['Setting or plugin', 'Outcome', "The server's words"]} />
        <tbody>
          {group.findings.map((f) => (
            <FindingRow key={`${f.kind}-${f.kind === 'option' ? f.finding.name : f.finding.plugin}`} finding={f} />
          ))}
        </tbody>
      </table>
    </details>
  )
}

/** One check of the capture against a new version: its status, the new binary, the headline (and
 * its findings.csv), what its schema trial asked, then the findings most severe first, each with
 * what to do and the server's words (or the lab's reason for not trying it), a severity's rows
 * collapsed past COLLAPSED_ROWS. With the API's `ordered` findings (every kind in one severity
 * order) those come first, then the settings not tried and what the new version takes as it is.
 * `cancel` (its cancel request, then `onCancelled`) and `share` (its share control): none on a
 * shared page. Its card is `#check-<id>` (an assessment's evidence link): named by the page's address,
 * it is scrolled to and marked. */
export function CheckView({
  check,
  cancel,
  onCancelled,
  share,
  csvHref,
}: {
  check: CheckRead
  cancel?: () => Promise<unknown>
  onCancelled?: () => void
  share?: ReactNode
  /** Where its findings.csv is (none: no link here). */
  csvHref?: string
}) {
  const groups = findingGroups(check)
  const ordered = orderedOf(check)
  const byOrder = ordered ? orderedGroups(ordered) : null
  const notTried = groups.find((g) => g.key === 'not-tried')?.findings.length ?? 0
  const shownGroups = byOrder ? groups.filter((g) => QUIET.has(g.key)) : groups
  const final = isFinal(check.status)
  const trial = trialLine(check.schema_load)
  const anchor = `check-${check.id}`
  const marked = useHashId() === anchor
  useScrollToHash(marked ? anchor : '')
  return (
    <div className={marked ? `card ${HASH_TARGET}` : 'card'} id={anchor} data-testid="capture-check">
      <h3>
        Check #{check.id} against {check.target}{' '}
        <StatusBadge status={check.status} testId="check-status" />{' '}
        {!final && cancel && <CancelButton cancel={cancel} onSettled={onCancelled} testId="check-cancel" small />}
      </h3>
      <p className="muted small">
        {check.server ? `Binary ${check.server}. ` : ''}Started {formatDateTime(check.started_at)}, finished{' '}
        {formatDateTime(check.finished_at)}.
      </p>
      {check.hosts && (
        <p className="muted small" data-testid="check-hosts"
          title={`team's CPUs: ${check.hosts.team.cpus_from}; memory: ${check.hosts.team.memory_from}`}>
          Defaults computed from the host, resolved for the {hostsLine(check.hosts)} (each in the evidence below).{' '}
          <span data-testid="check-hosts-use">{hostsUse(check.hosts)}</span>
        </p>
      )}
      {share}
      <ErrorBox error={check.error} title="Check failed" testId="check-error" />
      {check.status === 'succeeded' && (
        <p data-testid="check-headline">
          <strong>{byOrder ? orderedHeadline(byOrder, notTried) : checkHeadline(groups)}</strong>
          {csvHref && (
            <>
              {' '}
              <a href={csvHref} className="small" data-testid="check-csv" download>
                findings.csv
              </a>
            </>
          )}
        </p>
      )}
      {check.status === 'succeeded' && trial && (
        <p className="muted small" data-testid="check-trial">
          {trial}
        </p>
      )}
      {byOrder?.map((group) => (
        <SeverityGroup key={group.key} group={group} />
      ))}
      {shownGroups.map((group) => (
        <Group key={group.key} group={group} />
      ))}
      <OtherFindings check={check} withOrdered={byOrder !== null} />
    </div>
  )
}
