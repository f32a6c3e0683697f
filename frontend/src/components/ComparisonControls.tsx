import type { Comparison } from '../client'
import type { ComparisonSettings } from '../queries/compare'

interface Props {
  settings: ComparisonSettings
  onChange: (next: ComparisonSettings) => void
  comparison?: Comparison
}

/** Baseline variant, warm-up iterations excluded, verdict threshold (%). */
export function ComparisonControls({ settings, onChange, comparison }: Props) {
  return (
    <div className="filters" data-testid="comparison-controls">
      <label>
        Baseline
        <select
          data-testid="baseline-select"
          value={settings.baseline ?? comparison?.baseline ?? ''}
          onChange={(e) => onChange({ ...settings, baseline: e.target.value || null })}
        >
          {(comparison?.series.length ? comparison.series : comparison?.rounds ?? [])
            .filter((one, position, all) => all.findIndex((other) => other.key === one.key) === position)
            .map((one) => (
              <option key={one.key} value={one.key}>
                {one.label}
              </option>
            ))}
        </select>
      </label>
      <label>
        Warm-up iterations excluded
        <input
          type="number"
          min={0}
          data-testid="warmup-input"
          value={settings.warmup}
          onChange={(e) => onChange({ ...settings, warmup: Math.max(0, Number(e.target.value) || 0) })}
        />
      </label>
      <label>
        Verdict threshold (%)
        <input
          type="number"
          min={0.1}
          max={99}
          step={0.5}
          data-testid="threshold-input"
          value={Math.round(settings.threshold * 1000) / 10}
          onChange={(e) => {
            const pct = Number(e.target.value)
            if (pct > 0 && pct < 100) onChange({ ...settings, threshold: pct / 100 })
          }}
        />
      </label>
    </div>
  )
}
