import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { CheckRead } from '../../client'
import { CheckView } from './CheckView'

afterEach(cleanup)

// A succeeded check as GET /api/captures/{id}/checks answers it, with a list of findings this page
// does not know yet (a newer backend's `changed_defaults`).
const CHECK = {
  id: 4, capture_id: 2, target: 'mariadb-11.8', status: 'succeeded', error: null, server: 'mariadbd 11.8.9',
  created_at: '2026-11-27T10:00:00Z', started_at: '2026-11-27T10:00:01Z', finished_at: '2026-11-27T10:00:04Z',
  findings: [
    { name: 'max_connections', line: 'max-connections=77', outcome: 'accepted', words: '' },
    { name: 'innodb_change_buffering', line: 'innodb-change-buffering=all', outcome: 'deprecated',
      words: "[Warning] 'innodb-change-buffering' was removed. It does nothing now" },
    { name: 'innodb_change_buffer_max_size', line: 'innodb-change-buffer-max-size=30', outcome: 'refused',
      words: "[ERROR] mariadbd: unknown variable 'innodb-change-buffer-max-size=30'" },
  ],
  account_findings: [{ plugin: 'sha256_password', accounts: ["'old'@'%'"], outcome: 'missing', words: 'not in PLUGINS' }],
  changed_defaults: [{ name: 'character_set_server', old: 'latin1', new: 'utf8mb4' }],
} as unknown as CheckRead // prettier-ignore

describe('CheckView', () => {
  it('shows the findings most severe first, each with the server’s words', () => {
    render(<CheckView check={CHECK} />)
    const groups = screen.getAllByTestId(/^check-group-/).map((g) => g.dataset.testid)
    expect(groups).toEqual(['check-group-does-not-start', 'check-group-locks-out', 'check-group-warns', 'check-group-same'])
    expect(within(screen.getByTestId('finding-innodb_change_buffer_max_size')).getByText(/unknown variable/)).toBeTruthy()
    expect(screen.getByTestId('check-headline').textContent).toBe(
      'Does not start: 1 setting · Locks users out: 1 account · Starts with a warning: 1 setting',
    )
    expect(screen.queryByTestId('check-cancel')).toBeNull() // a finished check
  })

  it('shows a list of findings it does not know as a plain table rather than dropping it', () => {
    render(<CheckView check={CHECK} />)
    const extra = screen.getByTestId('check-extra-changed_defaults')
    expect(extra.textContent).toContain('character_set_server')
    expect(extra.textContent).toContain('utf8mb4')
  })

  it('puts the API’s one severity order first when it sends one, then what was not tried or taken', () => {
    const ordered = {
      ...CHECK,
      findings: [...(CHECK.findings ?? []), { name: 'port', line: null, outcome: 'not_tried', words: 'network exposure' }],
      identifier_findings: [{ kind: 'table', schema_name: 'shop', table: null, name: 'vector', probe: 'CREATE TABLE vector', words: 'syntax' }],
      ordered: [
        { severity: 'does_not_start', kind: 'option', subject: 'innodb-change-buffer-max-size=30', outcome: 'refused', evidence: 'unknown variable' },
        { severity: 'changes_results', kind: 'identifier', subject: 'table vector (shop)', outcome: 'no_longer_parses', evidence: 'syntax' },
        { severity: 'changes_results', kind: 'charset', subject: 'collation_server', outcome: 'latin1_swedish_ci -> utf8mb4_uca1400_ai_ci', evidence: '' },
        { severity: 'changes_performance', kind: 'option', subject: 'innodb-change-buffering=all', outcome: 'deprecated', evidence: 'removed' },
      ],
    } as unknown as CheckRead // prettier-ignore
    render(<CheckView check={ordered} />)
    const groups = screen.getAllByTestId(/^check-(severity|group)-/).map((g) => g.dataset.testid)
    expect(groups).toEqual([
      'check-severity-does_not_start',
      'check-severity-changes_results',
      'check-severity-changes_performance',
      'check-group-not-tried',
      'check-group-same',
    ])
    expect(screen.getByTestId('check-headline').textContent).toBe(
      'Does not start: 1 · Changes results: 2 · Changes performance: 1 (1 setting not tried)',
    )
    expect(screen.getAllByTestId('ordered-charset')[0].textContent).toContain('latin1_swedish_ci -> utf8mb4_uca1400_ai_ci') // as sent
    expect(screen.queryByTestId('check-extra-identifier_findings')).toBeNull() // `ordered` holds them
    expect(screen.getByTestId('check-extra-changed_defaults')).toBeTruthy() // a list of another name
  })

  it('shows a setting in the form tried with the team server’s own display beside it', () => {
    const tried = {
      ...CHECK,
      findings: [{ name: 'old_alter_table', line: 'old-alter-table=ON', outcome: 'accepted', words: '', shown: 'COPY' }],
    } as CheckRead
    render(<CheckView check={tried} />)
    expect(screen.getByTestId('finding-old_alter_table').textContent).toBe("old-alter-table=ONthe team's server shows COPYaccepted")
  })

  it('names the two hosts the defaults were resolved for, and no hosts line on an older check', () => {
    const hosts = {
      team: { cpus: 64, memory_mib: 262144, cpus_from: 'given on the check', memory_from: 'given on the check' },
      lab: { cpus: 2, memory_mib: 24105, cpus_from: 'the lab host', memory_from: 'the lab host' },
    }
    render(<CheckView check={{ ...CHECK, hosts } as CheckRead} />)
    expect(screen.getByTestId('check-hosts').textContent).toContain("team's host: 64 CPUs, 256 GiB · lab's host: 2 CPUs, 23.5 GiB")
    expect(screen.getByTestId('check-hosts-use').textContent).toContain("Team's CPUs: given on the check; used by no default")
    cleanup()
    render(<CheckView check={CHECK} />)
    expect(screen.queryByTestId('check-hosts')).toBeNull()
  })

  it('gives each finding what to do, the trial’s counts, the findings.csv, and collapses a long severity', () => {
    const many = Array.from({ length: 48 }, (_, i) => ({
      severity: 'changes_performance', kind: 'default', subject: `v${i}`, outcome: 'changed', evidence: 'a -> b', action: '',
    }))
    const check = {
      ...CHECK,
      ordered: [
        { severity: 'does_not_load', kind: 'schema', subject: 'procedure shop.best_score', outcome: 'no_longer_parses',
          evidence: "line 146 of the dump: ERROR 1064 near 'qualify'\nCREATE PROCEDURE ...",
          action: 'quote `qualify` in these 2 places (lines 3, 4 of the statement) in procedure shop.best_score' },
        { severity: 'note', kind: 'workload', subject: 'the captured workload', outcome: 'empty', evidence: 'history off',
          action: "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' ..." },
        ...many,
      ],
      schema_load: {
        load: { statements: 101, loaded: 94, refused: 7, skipped: 1, not_loaded: [], not_loaded_count: 0, error: null },
        statements: { digests: 6, asked: 5, parses: 2, refused: 3, folded: 0, error: null, workload_problems: [], empty: false,
          not_asked: [{ reason: 'its own server did not parse or prepare this text', count: 1 }] },
      },
    } as unknown as CheckRead // prettier-ignore
    render(<CheckView check={check} csvHref="/api/captures/2/checks/4/findings.csv" />)
    const groups = screen.getAllByTestId(/^check-severity-/).map((g) => g.dataset.testid)
    expect(groups).toEqual(['check-severity-does_not_load', 'check-severity-changes_performance', 'check-severity-note'])
    const load = within(screen.getByTestId('check-severity-does_not_load'))
    expect(load.getByTestId('finding-action').textContent).toContain('quote `qualify` in these 2 places')
    expect(screen.getByTestId('check-headline').textContent).toContain('Does not load: 1')
    expect(screen.getByTestId('check-csv').getAttribute('href')).toBe('/api/captures/2/checks/4/findings.csv')
    expect(screen.getByTestId('check-trial').textContent).toBe(
      'Schema: 101 statements sent, 94 loaded, 7 refused. Statements: 5 of 6 asked of its parser, 2 parse, 3 refused; ' +
        '1 not asked: its own server did not parse or prepare this text.',
    )
    const performance = within(screen.getByTestId('check-severity-changes_performance'))
    expect(performance.getAllByTestId('ordered-default')).toHaveLength(20)
    fireEvent.click(performance.getByTestId('check-more-changes_performance'))
    expect(performance.getAllByTestId('ordered-default')).toHaveLength(48)
    expect(performance.getByTestId('check-more-changes_performance').textContent).toBe('Show the first 20')
  })
})
