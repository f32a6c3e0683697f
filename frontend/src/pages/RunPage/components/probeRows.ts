import type { ProbeIteration, VariantProbes } from '../../../client'

export type ProbeRow = { iteration: number } & Record<string, number | null>

// Keys are by variant_index: variant names may contain dots, which Recharts reads as paths.
export const keyOf = (variantIndex: number, suffix = '') => `v${variantIndex}${suffix}`

/** One row per iteration with `pick`'s values per variant (and their count: the chart's points). */
export function rowsOf(
  variants: VariantProbes[],
  pick: (point: ProbeIteration) => Record<string, number | null>,
): { rows: ProbeRow[]; points: number } {
  const byIteration = new Map<number, ProbeRow>()
  let points = 0
  for (const v of variants) {
    for (const p of v.iterations) {
      let row = byIteration.get(p.iteration)
      if (!row) {
        row = { iteration: p.iteration }
        byIteration.set(p.iteration, row)
      }
      for (const [suffix, value] of Object.entries(pick(p))) {
        if (value === null) continue
        row[keyOf(v.variant_index, suffix)] = value
        points += 1
      }
    }
  }
  return { rows: [...byIteration.values()].sort((a, b) => a.iteration - b.iteration), points }
}
