import type { DatasetProgress } from '../../../api/models'

function mb(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`
}

/** Dataset preparation: rows, bytes, elapsed and the estimate, while the run prepares its data. */
export function PreparingBanner({ progress }: { progress: DatasetProgress }) {
  const parts = [progress.phase]
  if (progress.rows != null && progress.rows_total != null) {
    parts.push(`${progress.rows.toLocaleString()} / ${progress.rows_total.toLocaleString()} rows`)
  }
  if (progress.bytes != null) parts.push(`~${mb(progress.bytes)}`)
  if (progress.elapsed_s != null) parts.push(`${progress.elapsed_s.toFixed(1)} s elapsed`)
  if (progress.estimate_s != null) parts.push(`~${progress.estimate_s.toFixed(0)} s estimated in all`)
  const reused = progress.phase === 'dataset reused'
  return (
    <div className="notice" data-testid="preparing-banner">
      {reused
        ? 'Dataset reused: the target already holds one of the same specification.'
        : `Preparing dataset: ${parts.join(' · ')}`}
    </div>
  )
}
