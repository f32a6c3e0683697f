// "Replay with the team's settings": the captured workload on a dataset, on the old and the new
// version's lab targets, each variant starting with the capture's settings as that target takes them
// (GET /api/captures/{id}/variant: refused and never-written ones dropped, the buffer pool scaled).
import type { CaptureRead, ReplayCreate, TargetRead, TeamVariantRead } from '../../client'

/** Targets a variant can start with an option file: the lab's own (an existing server takes none). */
export function optionTargets(targets: readonly TargetRead[]): TargetRead[] {
  return targets.filter((t) => t.provisioner !== 'existing')
}

/** The old version's target to offer first: the captured target itself when the lab runs it, else the
 * first lab target of the capture's flavor whose version starts with the capture's major.minor. */
export function defaultOldTarget(capture: Pick<CaptureRead, 'target' | 'flavor' | 'version'>, targets: readonly TargetRead[]) {
  const runnable = optionTargets(targets)
  const own = runnable.find((t) => t.name === capture.target)
  if (own) return own.name
  const series = capture.version?.match(/^(\d+\.\d+)/)?.[1]
  const same = runnable.find(
    (t) => t.flavor === capture.flavor && series !== undefined && (t.version?.startsWith(series) || t.name.endsWith(`-${series}`)),
  )
  return same?.name ?? ''
}

/** The replay of the captured `queries` on `dataset`, one variant per target (the first the
 * baseline), each named "<target> (team settings)" with its options. */
export function teamReplayBody(
  captureId: number,
  dataset: string,
  queries: string,
  variants: readonly Pick<TeamVariantRead, 'target' | 'options'>[],
): ReplayCreate {
  return {
    name: `capture ${captureId}: team settings, ${variants.map((v) => v.target).join(' vs ')}`,
    dataset,
    queries,
    variants: variants.map((v) => ({ target: v.target, name: `${v.target} (team settings)`, options: { ...v.options } })),
  }
}
