// Like with like: per case of the article, its ratio to the article's baseline beside the ratio the
// latest run measured (the case's variant / the baseline target's default variant, medians).
import type { ArticleCaseRead, ExperimentRead, SummaryRow } from '../../client'

export interface CaseRatio {
  case: ArticleCaseRead
  /** The variant of the latest run that reproduces the case, or null when the run lacks it. */
  variant: string | null
  /** Its median iteration time / the baseline variant's, or null. */
  measured: number | null
}

export interface Ratios {
  /** The latest run's baseline: the first default variant (null when it has none). */
  baseline: string | null
  rows: CaseRatio[]
}

/** Match each case to a variant of the run (by preset on the baseline's target, or by another target
 * for the article's other version) and take the ratio of medians. */
export function caseRatios(cases: ArticleCaseRead[], experiment: ExperimentRead, summary: SummaryRow[]): Ratios {
  const median = (name: string) => summary.find((row) => row.variant === name)?.median_s ?? null
  const base = experiment.variants.find((v) => v.preset === 'default') ?? null
  const baseMedian = base ? median(base.name) : null
  const rows = cases.map((c) => {
    const match = base
      ? experiment.variants.find((v) =>
          c.other_target ? v.target !== base.target && v.preset === 'default' : v.target === base.target && v.preset === c.preset,
        )
      : undefined
    const m = match ? median(match.name) : null
    return {
      case: c,
      variant: match?.name ?? null,
      measured: m !== null && baseMedian ? m / baseMedian : null,
    }
  })
  return { baseline: base?.name ?? null, rows }
}
