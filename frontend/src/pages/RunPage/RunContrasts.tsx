import type { RunContrasts as Contrasts } from '../../client'
import { ContrastChart } from '../../components/Contrasts/ContrastChart'
import { ContrastTable } from '../../components/Contrasts/ContrastTable'

/** The template's own comparisons inside each variant (monitor on / off, N threads / 1, first count /
 * later), paired within the round, and across variants the ratio of those ratios; nothing for a
 * template that declares none. */
export function RunContrasts({ runId, contrasts }: { runId: number; contrasts: Contrasts }) {
  if (contrasts.within.length === 0) return null
  return (
    <section data-testid="run-contrasts">
      <h2>Contrasts</h2>
      <p className="small muted">
        Inside each variant, per round: one group&apos;s median over another&apos;s; the ratio is the trimmed
        geometric mean of the rounds&apos; ratios with its 95 % interval. Below: each variant&apos;s ratio over the
        first variant&apos;s, paired within the round.
      </p>
      <ContrastChart rows={contrasts.within} pngName={`run-${runId}-contrasts`} />
      <ContrastTable contrasts={contrasts} />
    </section>
  )
}
