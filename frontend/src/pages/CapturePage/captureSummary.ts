// A capture's summary line: what was read of the team's server, counted, each part the section it
// sums up (the page's anchors).
import type { CaptureRead } from '../../client'
import { plural } from '../../format'
import { configurationCounts } from './configuration'

/** One part of the summary: its words and the section (element id) that shows it whole. */
export interface SummaryPart {
  text: string
  section: string
}

/** What the capture holds, in the page's order, for the line under its header: "MariaDB 10.11.19:
 * 40 of 600 variables differ from the default", "127 statement digests (50,800 executions, 120
 * replayable)", "9 accounts" (or why they were not read), and its dataset (or why there is none).
 * A part the capture does not have (yet: a running one) is left out. */
export function captureSummary(capture: CaptureRead): SummaryPart[] {
  const parts: SummaryPart[] = []
  const configuration = capture.configuration
  if (configuration) {
    const counts = configurationCounts(configuration.variables)
    parts.push({
      text: `${configuration.flavor} ${configuration.version}: ${counts.differs} of ${counts.all} variables differ from the default`,
      section: 'capture-configuration',
    })
  }
  const workload = capture.workload
  if (workload) {
    const replayable = workload.replayable != null ? `, ${workload.replayable} replayable` : ''
    parts.push({
      text: `${plural(workload.digests.length, 'statement digest')} (${workload.executions.toLocaleString('en-US')} executions${replayable})`,
      section: 'capture-workload',
    })
  }
  if (capture.accounts) parts.push({ text: plural(capture.accounts.length, 'account'), section: 'capture-accounts' })
  else if (capture.accounts_error) parts.push({ text: 'accounts not read', section: 'capture-accounts' })
  const dump = capture.dump
  if (dump?.dataset) parts.push({ text: `dataset ${dump.dataset}`, section: 'capture-dump-section' })
  else if (dump?.error) parts.push({ text: 'no dataset', section: 'capture-dump-section' })
  return parts
}
