/** The worker's current step: variant k of n, and while a dump loads, MB fed, rows, time left. */
export function ReplayProgress({ progress }: { progress: Record<string, unknown> }) {
  const num = (key: string) => (typeof progress[key] === 'number' ? (progress[key] as number) : null)
  const fed = num('bytes')
  const total = num('rows_total')
  const estimate = num('estimate_s')
  const elapsed = num('elapsed_s')
  return (
    <div className="card" data-testid="replay-progress">
      Variant {String(progress.index)} of {String(progress.of)} ({String(progress.variant)}): {String(progress.phase)}
      {fed !== null && total ? (
        <>
          {' '}
          <progress value={fed} max={total} /> {(fed / 1048576).toFixed(1)} / {(total / 1048576).toFixed(1)} MB,{' '}
          {(num('rows') ?? 0).toLocaleString()} rows
          {elapsed !== null && `, ${elapsed.toFixed(0)} s`}
          {estimate !== null && elapsed !== null && `, ~${Math.max(0, estimate - elapsed).toFixed(0)} s left`}
        </>
      ) : null}
    </div>
  )
}
