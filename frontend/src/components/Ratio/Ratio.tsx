import type { VerdictRead } from '../../client'

interface Props {
  /** variant / baseline (or numerator / denominator) with its interval: the one read model of a
   * verdict, whatever job produced it (run, comparison, contrast, replay, attribution). */
  value: VerdictRead | null | undefined
  testId?: string
  /** Also the verdict after the interval ("1.23x [1.10, 1.37] regression"), its reason as the tooltip. */
  withVerdict?: boolean
  /** Also the rounds the interval rests on ("(10 rounds)"). */
  withRounds?: boolean
}

/** Every ratio with its interval in the UI: "1.23x [1.10, 1.37]" (two decimals; the CLI prints the same,
 * backend results/stats/verdicts.py `text`), the interval muted, the verdict's reason on hover; a muted
 * "-" without a value. */
export function Ratio({ value, testId, withVerdict = false, withRounds = false }: Props) {
  if (!value) {
    return (
      <span className="muted" data-testid={testId}>
        -
      </span>
    )
  }
  return (
    <span data-testid={testId} title={value.reason} data-verdict={value.verdict}>
      {value.ratio.toFixed(2)}x{' '}
      <span className="muted">
        [{value.low.toFixed(2)}, {value.high.toFixed(2)}]
      </span>
      {withVerdict && ` ${value.verdict}`}
      {withRounds && ` (${value.rounds} rounds)`}
    </span>
  )
}
