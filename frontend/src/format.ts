// Small display helpers shared by the pages.

export function formatDateTime(iso: string | null): string {
  if (!iso) return '-'
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return d.toLocaleString(undefined, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  })
}

/** Human duration between two ISO timestamps; `end` null means "until now". */
export function formatDuration(start: string | null, end: string | null, now = Date.now()): string {
  if (!start) return '-'
  const s = new Date(start).getTime()
  const e = end ? new Date(end).getTime() : now
  if (Number.isNaN(s) || Number.isNaN(e)) return '-'
  return formatSeconds(Math.max(0, (e - s) / 1000))
}

export function formatSeconds(total: number): string {
  if (total < 60) return `${total.toFixed(1)} s`
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = Math.floor(total % 60)
  return h > 0 ? `${h}h ${m}m ${s}s` : `${m}m ${s}s`
}

export function formatMs(seconds: number | null): string {
  if (seconds == null) return '-'
  const ms = seconds * 1000
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(2)
}

export function formatRatio(ratio: number | null): string {
  return ratio == null ? '-' : `${ratio.toFixed(2)}x`
}

/** A count with its noun: "1 break", "2 breaks", "3 refused writes" (`many` for an irregular plural). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}
