// The captured configuration as the page shows it: which variables, in which order, counted.
import type { Variable } from '../../client'

/** Which variables the table shows: those that differ from the version's default, those whose
 * default the lab could not tell, or all of them. */
export type Shown = 'differs' | 'unknown' | 'all'

/** differs first (the team's own settings), then unknown, then implied (their value follows another
 * setting or the host), then default; by name within each. */
const RANK: Record<string, number> = { differs: 0, unknown: 1, implied: 1.5, default: 2 }

/** The variables to show (`shown`, and whose name or value holds `search`, case-insensitive), in
 * the table's order. A comparison this UI does not know yet is ranked with the unknown ones. */
export function configurationRows(variables: readonly Variable[], shown: Shown, search = ''): Variable[] {
  const needle = search.trim().toLowerCase()
  return variables
    .filter((v) => shown === 'all' || v.comparison === shown)
    .filter((v) => !needle || v.name.toLowerCase().includes(needle) || v.value.toLowerCase().includes(needle))
    .sort((a, b) => (RANK[a.comparison] ?? 1) - (RANK[b.comparison] ?? 1) || a.name.localeCompare(b.name))
}

/** How many variables have each comparison, and how many of the differing ones the host computes. */
export function configurationCounts(variables: readonly Variable[]) {
  const count = (c: string) => variables.filter((v) => v.comparison === c).length
  return {
    all: variables.length,
    differs: count('differs'),
    unknown: count('unknown'),
    default: count('default'),
    implied: count('implied'),
    hostDependentDiffers: variables.filter((v) => v.comparison === 'differs' && v.host_dependent).length,
  }
}
