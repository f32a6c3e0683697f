import { Link } from 'react-router-dom'
import type { Target } from '../../api/models'
import { flavorWarning, targetLabel, type PresetChoice, type VariantRowState } from './variants'

interface Props {
  index: number
  row: VariantRowState
  targets: Target[]
  presets: PresetChoice[]
  onChange: (patch: Partial<VariantRowState>) => void
  onRemove: () => void
}

export function VariantRow({ index, row, targets, presets, onChange, onRemove }: Props) {
  const target = targets.find((t) => t.name === row.target)
  const preset = presets.find((p) => p.name === row.preset)
  const warning = flavorWarning(preset, target)
  const id = `variant-${row.key}`
  // Keep a value the list doesn't know (e.g. a target that disappeared) selectable.
  const unknownTarget = row.target !== '' && !target
  const unknownPreset = row.preset !== '' && !preset

  return (
    <fieldset className="variant-row" data-testid="variant-row">
      <legend>Variant {index + 1}</legend>
      <div className="variant-grid">
        <label htmlFor={`${id}-target`}>
          <span>
            Target{' '}
            {target && (
              <Link className="small" to={`/targets/${encodeURIComponent(target.name)}`} data-testid="variant-target-link">
                (page)
              </Link>
            )}
          </span>
          <select
            id={`${id}-target`}
            data-testid="variant-target"
            value={row.target}
            onChange={(e) => onChange({ target: e.target.value })}
          >
            {unknownTarget && <option value={row.target}>{row.target}</option>}
            {targets.map((t) => (
              <option key={t.id} value={t.name}>
                {targetLabel(t)}
              </option>
            ))}
          </select>
        </label>
        <label htmlFor={`${id}-preset`}>
          <span>Preset</span>
          <select
            id={`${id}-preset`}
            data-testid="variant-preset"
            value={row.preset}
            title={preset?.description}
            onChange={(e) => onChange({ preset: e.target.value })}
          >
            {unknownPreset && <option value={row.preset}>{row.preset}</option>}
            {presets.map((p) => (
              <option key={p.name} value={p.name} title={p.description}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label htmlFor={`${id}-name`}>
          <span>
            Name <span className="muted">(optional)</span>
          </span>
          <input
            id={`${id}-name`}
            data-testid="variant-name"
            type="text"
            value={row.name}
            placeholder="derived from target + preset"
            onChange={(e) => onChange({ name: e.target.value })}
          />
        </label>
        <div className="variant-remove">
          <button
            type="button"
            className="btn btn-secondary btn-small"
            data-testid="remove-variant"
            onClick={onRemove}
            title="Remove this variant"
          >
            Remove
          </button>
        </div>
        <label htmlFor={`${id}-options`} className="variant-options">
          <span>
            Extra server options{' '}
            <span className="muted">(optional; one name=value or bare name per line)</span>
          </span>
          <textarea
            id={`${id}-options`}
            data-testid="variant-options"
            rows={2}
            value={row.optionsText}
            placeholder={'innodb_flush_log_at_trx_commit=2\nskip-log-bin'}
            onChange={(e) => onChange({ optionsText: e.target.value })}
          />
        </label>
        <label htmlFor={`${id}-set-global`} className="variant-options">
          <span>
            SET GLOBAL <span className="muted">(optional; one name=value per line, after start)</span>
          </span>
          <textarea
            id={`${id}-set-global`}
            data-testid="variant-set-global"
            rows={2}
            value={row.setGlobalText ?? ''}
            placeholder={'innodb_flush_log_at_trx_commit=2\nsync_binlog=0'}
            onChange={(e) => onChange({ setGlobalText: e.target.value })}
          />
        </label>
        <label htmlFor={`${id}-set-session`} className="variant-options">
          <span>
            SET SESSION <span className="muted">(optional; one name=value per line, on the connection that runs the workload or the replayed statements)</span>
          </span>
          <textarea
            id={`${id}-set-session`}
            data-testid="variant-set-session"
            rows={2}
            value={row.setSessionText ?? ''}
            placeholder={'unique_checks=OFF'}
            onChange={(e) => onChange({ setSessionText: e.target.value })}
          />
        </label>
        <label htmlFor={`${id}-instance`} className="variant-options">
          <span>
            Instance statements <span className="muted">(optional; one per line, e.g. ALTER INSTANCE DISABLE INNODB REDO_LOG)</span>
          </span>
          <textarea
            id={`${id}-instance`}
            data-testid="variant-instance"
            rows={1}
            value={row.instanceText ?? ''}
            placeholder={'ALTER INSTANCE DISABLE INNODB REDO_LOG'}
            onChange={(e) => onChange({ instanceText: e.target.value })}
          />
        </label>
      </div>
      {preset && <p className="hint">{preset.description}</p>}
      {warning && <p className="warning">{warning}</p>}
    </fieldset>
  )
}
