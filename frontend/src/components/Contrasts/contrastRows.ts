// A run's contrasts as chart rows: one point per variant and contrast, ratio with its interval as the
// error bar's [below, above] distances (Recharts' ErrorBar takes distances, not bounds).
import type { ContrastRead } from '../../client'

export interface ContrastPoint {
  /** "variant · contrast", the chart's category. */
  label: string
  variantIndex: number
  ratio: number
  /** [ratio - low, high - ratio] */
  error: [number, number]
  verdict: string
}

/** Rows with a verdict only (a side without iterations has none to draw). */
export function contrastPoints(rows: ContrastRead[]): ContrastPoint[] {
  return rows.flatMap((row) =>
    row.verdict
      ? [
          {
            label: `${row.variant} · ${row.name}`,
            variantIndex: row.variant_index,
            ratio: row.verdict.ratio,
            error: [row.verdict.ratio - row.verdict.low, row.verdict.high - row.verdict.ratio] as [number, number],
            verdict: row.verdict.verdict,
          },
        ]
      : [],
  )
}
