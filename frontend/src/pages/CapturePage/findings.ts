// A check's findings in one severity order across their kinds (issue 35: does not start / locks users
// out / ... ): the team's settings (CheckRead.findings, captures/option_check.py) and its accounts'
// authentication plugins (CheckRead.account_findings). Outcomes this UI does not know yet (the check
// grows new ones) are shown in a group of their own, never dropped.
import type { AccountFindingRead, CheckRead, Finding as OrderedFinding, OptionFindingRead } from '../../client'
import { plural } from '../../format'

export type Finding =
  | { kind: 'option'; finding: OptionFindingRead }
  | { kind: 'account'; finding: AccountFindingRead }

export interface FindingGroup {
  key: string
  title: string
  /** What the group means for the team's upgrade. */
  meaning: string
  findings: Finding[]
}

interface Severity {
  key: string
  title: string
  meaning: string
  option?: string
  account?: string
}

/** Most severe first. */
const SEVERITIES: Severity[] = [
  { key: 'does-not-start', title: 'Does not start', option: 'refused',
    meaning: 'The new version refuses these settings: a server with this option file does not start.' },
  { key: 'locks-out', title: 'Locks users out', account: 'missing',
    meaning: 'The new version lacks these authentication plugins: these accounts cannot log in.' },
  { key: 'needs-plugin', title: 'Needs a plugin loaded', account: 'not_loaded',
    meaning: 'These accounts can log in only once the plugin is loaded (INSTALL SONAME).' },
  { key: 'no-effect', title: 'Taken and ignored', option: 'no_effect',
    meaning: 'The new version takes these settings and does nothing with them: the intent behind them is lost.' },
  { key: 'adjusted', title: 'Value changed at start', option: 'adjusted',
    meaning: 'The new version starts with another value than the team\'s (its words say which).' },
  { key: 'anonymous', title: 'Anonymous accounts', account: 'anonymous',
    meaning: 'Accounts without a user name match any user from their host: a hygiene note, whatever the version.' },
  { key: 'warns', title: 'Starts with a warning', option: 'deprecated',
    meaning: 'The new version takes these settings and warns about them in its error log.' },
  { key: 'not-tried', title: 'Not tried', option: 'not_tried',
    meaning: 'The lab does not write these settings on its servers (the reason is given).' },
  { key: 'implied', title: 'Implied, not the team\'s', option: 'implied',
    meaning: 'Their value follows another setting or the host (their origin says the team did not set them): never tried.' },
  { key: 'no-login', title: 'No login', account: 'no_login',
    meaning: 'Roles and locked accounts: nobody logs in as them, so no plugin locks them out.' },
  { key: 'same', title: 'Taken as they are', option: 'accepted', account: 'available',
    meaning: 'The new version accepts these settings; these accounts keep their plugin.' },
] // prettier-ignore

/** Groups that change nothing for the team, or that the lab did not try: left out of the headline
 * (not tried ones are counted after it). */
export const QUIET = new Set(['same', 'not-tried', 'implied', 'no-login'])

function severityOf(finding: Finding): Severity | undefined {
  const outcome = finding.finding.outcome as string
  return SEVERITIES.find((s) => (finding.kind === 'option' ? s.option : s.account) === outcome)
}

/** The check's findings grouped by severity, most severe first, empty groups left out; a finding
 * whose outcome is not known here gets a group "<kind> <outcome>" just before the harmless ones. */
export function findingGroups(check: Pick<CheckRead, 'findings' | 'account_findings'>): FindingGroup[] {
  const all: Finding[] = [
    ...(check.findings ?? []).map((finding) => ({ kind: 'option' as const, finding })),
    ...(check.account_findings ?? []).map((finding) => ({ kind: 'account' as const, finding })),
  ]
  const groups = new Map<string, FindingGroup>()
  const other: FindingGroup[] = []
  for (const finding of all) {
    const severity = severityOf(finding)
    const key = severity?.key ?? `${finding.kind}-${String(finding.finding.outcome)}`
    let group = groups.get(key)
    if (!group) {
      group = severity
        ? { key, title: severity.title, meaning: severity.meaning, findings: [] }
        : { key, title: `${finding.kind === 'option' ? 'Setting' : 'Accounts'}: ${String(finding.finding.outcome)}`,
            meaning: 'An outcome this page does not describe yet; the server\'s words are shown.', findings: [] } // prettier-ignore
      groups.set(key, group)
      if (!severity) other.push(group)
    }
    group.findings.push(finding)
  }
  const known = SEVERITIES.map((s) => groups.get(s.key)).filter((g): g is FindingGroup => g !== undefined)
  const harmless = known.filter((g) => QUIET.has(g.key) && g.key !== 'not-tried')
  return [...known.filter((g) => !harmless.includes(g)), ...other, ...harmless]
}

/** The settings and the accounts a group holds. */
export function groupCounts(group: FindingGroup): { settings: number; accounts: number } {
  let settings = 0
  let accounts = 0
  for (const f of group.findings) {
    if (f.kind === 'option') settings += 1
    else accounts += f.finding.accounts.length
  }
  return { settings, accounts }
}



/** One line for the check's header, the groups that matter most first, e.g. "Does not start: 1
 * setting · Locks users out: 2 accounts"; "Nothing refused, no account locked out" otherwise; the
 * settings not tried counted after. */
export function checkHeadline(groups: readonly FindingGroup[]): string {
  const severe = groups.filter((g) => !QUIET.has(g.key))
  const head = severe.length
    ? severe
        .map((g) => {
          const { settings, accounts } = groupCounts(g)
          const parts = [settings ? plural(settings, 'setting') : '', accounts ? plural(accounts, 'account') : '']
          return `${g.title}: ${parts.filter(Boolean).join(', ') || plural(g.findings.length, 'finding')}`
        })
        .join(' · ')
    : 'Nothing refused, no account locked out'
  const notTried = groups.find((g) => g.key === 'not-tried')
  return notTried ? `${head} (${plural(notTried.findings.length, 'setting')} not tried)` : head
}

/** The backend's severities (captures/findings.py), most severe first, with the page's words. */
const ORDERED_TITLES: [string, string, string][] = [
  ['does_not_start', 'Does not start', 'The new version refuses these settings: a server with this option file does not start.'],
  ['locks_out', 'Locks users out', 'These accounts cannot log in on the new version (plugin missing or not loaded).'],
  ['does_not_load', 'Does not load', 'The new version refuses these statements of the captured schema, or its parser these captured statements: they fail after the move.'],
  ['changes_results', 'Changes results', 'Names that no longer parse, sql_mode values refused, character set and result defaults that change.'],
  ['changes_behaviour', 'Changes behaviour', 'Settings the new version takes and ignores, or starts with another value: the intent behind them is lost.'],
  ['changes_performance', 'Changes performance', 'Defaults that change under settings left unset, each changed flag on its own line.'],
  ['note', 'Notes', 'Hygiene (anonymous accounts), settings called deprecated, defaults the lab could not resolve for your host, why the captured workload is empty or not all replayable.'],
] // prettier-ignore

export interface OrderedGroup {
  key: string
  title: string
  meaning: string
  findings: OrderedFinding[]
}

/** The check's `ordered` findings (captures/findings.py, built when the check is read); null when
 * absent (the page then groups the settings' and accounts' findings itself). */
export function orderedOf(check: Pick<CheckRead, 'ordered'>): OrderedFinding[] | null {
  return check.ordered ?? null
}

/** A check's `ordered` findings (already in the backend's one severity order) grouped by severity,
 * empty groups left out; a severity this page does not know gets a group of its own, last. */
export function orderedGroups(ordered: readonly OrderedFinding[]): OrderedGroup[] {
  const known = ORDERED_TITLES.map(([key, title, meaning]) => ({
    key,
    title,
    meaning,
    findings: ordered.filter((f) => f.severity === key),
  }))
  // a severity a newer API adds: shown after the known ones
  const others = [...new Set(ordered.map((f) => f.severity as string))]
    .filter((s) => !ORDERED_TITLES.some(([key]) => key === s))
    .map((s) => ({ key: s, title: s.replaceAll('_', ' '), meaning: '', findings: ordered.filter((f) => (f.severity as string) === s) }))
  return [...known, ...others].filter((g) => g.findings.length > 0)
}

/** The headline of ordered groups: "Does not start: 1 · Changes results: 3", the `notTried`
 * settings counted after it as checkHeadline does; none: nothing found. */
export function orderedHeadline(groups: readonly OrderedGroup[], notTried = 0): string {
  const head = groups.length
    ? groups.map((g) => `${g.title}: ${g.findings.length}`).join(' · ')
    : 'Nothing refused, no account locked out, no result or default change found'
  return notTried ? `${head} (${plural(notTried, 'setting')} not tried)` : head
}

/** One line of what a check's schema trial asked (CheckRead.schema_load: the captured schema loaded
 * on the new version, the captured statements asked of its parser) and why not the rest; null on a
 * check made before it or of an option file. */
export function trialLine(trial: CheckRead['schema_load']): string | null {
  if (!trial) return null
  const { load, statements } = trial
  const schema =
    load.error && !load.statements
      ? `Schema not loaded: ${load.error}`
      : `Schema: ${load.statements ?? 0} statements sent, ${load.loaded ?? 0} loaded, ${load.refused ?? 0} refused` +
        ((load.not_loaded_count ?? 0) > 0 ? `, ${load.not_loaded_count} not loaded for the lab's reason or a missing object` : '')
  const notAsked = (statements.not_asked ?? []).map((n) => `${n.count} not asked: ${n.reason}`)
  const parsed =
    statements.error && !statements.asked
      ? `Statements: ${statements.error}`
      : [`Statements: ${statements.asked ?? 0} of ${statements.digests ?? 0} asked of its parser, ${statements.parses ?? 0} parse, ${statements.refused ?? 0} refused`, ...notAsked].join('; ')
  return `${schema}. ${parsed}.`
}
