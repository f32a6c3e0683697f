import type { Columns } from '../../../charts/paths'
import type { ProbeIteration, VariantProbes } from '../../../client'

// Keys are by variant_index: variant names may contain dots, which Recharts reads as paths.
export const keyOf = (variantIndex: number, suffix = '') => `v${variantIndex}${suffix}`

/** A variant's iterations that have a value as `pick` reads it (null/undefined: none), as columns: one
 * SVG path per line (LineSpec.columns), not a merged row per iteration. */
export function columnsOf(
  variant: VariantProbes,
  pick: (point: ProbeIteration) => number | null | undefined,
): Columns {
  const x: number[] = []
  const y: number[] = []
  for (const point of variant.iterations) {
    const value = pick(point)
    if (value == null) continue
    x.push(point.iteration)
    y.push(value)
  }
  return { x, y }
}
