// Fields a newer backend adds to a capture and a check (issue 35's second slice: the dump as a
// dataset, the schema's names, one severity order across every kind of finding), read defensively:
// each is optional here, so the page shows them when the API sends them and works without them.
import type { CaptureRead, CheckRead } from '../../client'

/** One finding in the check's one severity order (captures/findings.py Finding). */
export interface OrderedFinding {
  severity: string
  kind: string
  subject: string
  outcome: string
  evidence: string
}

/** What the capture's dump holds (captures/dump.py DumpRecord); every field may be missing. */
export interface DumpShape {
  client?: string | null
  databases?: string[]
  left_out?: { name?: string; reason?: string }[]
  tables_with_data?: number
  data_left_out?: { name?: string; reason?: string }[]
  data_limit_mb?: number | null
  bytes?: number
  dataset?: string | null
  error?: string | null
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

/** The check's `ordered` findings when the API sends them (null: an older API; the page then groups
 * the settings' and accounts' findings itself), rows without the five text fields left out. */
export function orderedOf(check: CheckRead): OrderedFinding[] | null {
  const value = (check as unknown as Record<string, unknown>).ordered
  if (!Array.isArray(value)) return null
  return value.filter(
    (row): row is OrderedFinding =>
      isObject(row) && ['severity', 'kind', 'subject', 'outcome', 'evidence'].every((k) => typeof row[k] === 'string'),
  )
}

/** The capture's dump record when the API sends one. */
export function dumpOf(capture: CaptureRead): DumpShape | null {
  const value = (capture as unknown as Record<string, unknown>).dump
  return isObject(value) ? (value as DumpShape) : null
}

/** How many names of the schema the capture read (null: not sent). */
export function identifierCount(capture: CaptureRead): number | null {
  const value = (capture as unknown as Record<string, unknown>).identifiers
  return Array.isArray(value) ? value.length : null
}
