import { useMemo, useState } from 'react'
import type { Comparison } from '../client'
import { LineChartCard } from '../charts/LineChartCard'
import { roundMetric } from '../charts/metrics'
import { variantColor } from '../charts/palette'

type Row = { round: number } & Record<string, number>

// seconds are drawn in ms like the iteration chart; other metrics (tps, p95_ms) as they are
const scale = (metric: string) => (metric === 'seconds' ? 1000 : 1)

/** Per-round median per variant (x = round) for one group and metric: what the verdicts rest on. */
export function RoundsChart({ comparison, pngName }: { comparison: Comparison; pngName?: string }) {
  const choices = useMemo(
    () => [...new Set(comparison.rounds.map((s) => `${s.group}|${s.metric}`))],
    [comparison.rounds],
  )
  const [picked, setPicked] = useState<string | null>(null)
  const choice = picked && choices.includes(picked) ? picked : choices[0] ?? '|seconds'
  const [group, metric] = choice.split('|')
  const unit = metric === 'seconds' ? 'ms' : (comparison.rows.find((r) => r.metric === metric)?.unit ?? '')
  const keys = useMemo(() => [...new Set(comparison.rounds.map((s) => s.key))], [comparison.rounds])
  const shown = useMemo(
    () => comparison.rounds.filter((s) => s.group === group && s.metric === metric),
    [comparison.rounds, group, metric],
  )
  const rows = useMemo(() => {
    const byRound = new Map<number, Row>()
    shown.forEach((s) => {
      for (const p of s.points) {
        const row = byRound.get(p.round) ?? { round: p.round }
        row[`k${keys.indexOf(s.key)}`] = p.value * scale(metric)
        byRound.set(p.round, row)
      }
    })
    return [...byRound.values()].sort((a, b) => a.round - b.round)
  }, [shown, keys, metric])
  return (
    <div data-testid="rounds-chart" data-rounds={String(rows.length)}>
      {choices.length > 1 && (
        <label className="small">
          Group and metric{' '}
          <select data-testid="rounds-select" value={choice} onChange={(e) => setPicked(e.target.value)}>
            {choices.map((c) => (
              <option key={c} value={c}>
                {c.replace('|', ' ').trim()}
              </option>
            ))}
          </select>
        </label>
      )}
      <LineChartCard
        rows={rows}
        x={{ key: 'round', label: 'round', integer: true }}
        y={roundMetric(metric, unit)}
        lines={shown.map((s) => ({
          key: `k${keys.indexOf(s.key)}`,
          name: s.label,
          color: variantColor(keys.indexOf(s.key)),
          dots: true,
        }))}
        height={280}
        empty={rows.length === 0}
        emptyText="No rounds recorded."
        pngName={pngName}
      />
    </div>
  )
}
