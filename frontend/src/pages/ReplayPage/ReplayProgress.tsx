import type { ReplayProgress as Progress } from '../../client'

/** The worker's current step: variant k of n, and while a dump loads, MB fed (`bytes` of the dump's
 * `rows_total` bytes, the loader's naming), rows, time left. */
export function ReplayProgress({ progress }: { progress: Progress }) {
  const { bytes: fed, rows_total: total, estimate_s: estimate, elapsed_s: elapsed } = progress
  return (
    <div className="card" data-testid="replay-progress">
      Variant {progress.index} of {progress.of} ({progress.variant}): {progress.phase}
      {fed != null && total ? (
        <>
          {' '}
          <progress value={fed} max={total} /> {(fed / 1048576).toFixed(1)} / {(total / 1048576).toFixed(1)} MB,{' '}
          {(progress.rows ?? 0).toLocaleString()} rows
          {elapsed != null && `, ${elapsed.toFixed(0)} s`}
          {estimate != null && elapsed != null && `, ~${Math.max(0, estimate - elapsed).toFixed(0)} s left`}
        </>
      ) : null}
    </div>
  )
}
