import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { useNavigate } from 'react-router-dom'
import { assessmentsApi } from '../api/assessments'
import { ErrorBox } from './ErrorBox'

interface Props {
  /** The team's server (a target's page) or a succeeded capture of it (a capture's page). */
  source: { target: string } | { capture_id: number }
  /** A viewer may not start one (the API answers 403): no form. */
  mayAct: boolean
}

// the API's default (backend assessment/schemas.py AssessmentCreate.fix_tolerance, 0.10: the fix
// search's own) and bounds (0.01-1.0), here in per cent as the fix search's form takes its tolerance
const FIX_TOLERANCE_PCT = { default: 10, min: 1, max: 100 }

/** Why `pct` is no fix tolerance the API takes (its field named, its unit), or null. */
function fixToleranceError(pct: number): string | null {
  if (Number.isFinite(pct) && pct >= FIX_TOLERANCE_PCT.min && pct <= FIX_TOLERANCE_PCT.max) return null
  return `Fix tolerance (%) must be between ${FIX_TOLERANCE_PCT.min} and ${FIX_TOLERANCE_PCT.max} (per cent of the old version's time)`
}

const names = (text: string) =>
  text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)

/** "Assess an upgrade": the new versions' lab targets, the baseline (the team's current version on a
 * lab target), the budget in minutes and the fix tolerance in per cent (sent as the API's fraction,
 * `fix_tolerance`; a value out of its bounds is named under the field and not sent); opens the
 * assessment's page once queued. */
export function AssessForm({ source, mayAct }: Props) {
  const navigate = useNavigate()
  const [open, setOpen] = useState(false)
  const [versions, setVersions] = useState('')
  const [baseline, setBaseline] = useState('')
  const [budget, setBudget] = useState(60)
  const [tolerancePct, setTolerancePct] = useState(FIX_TOLERANCE_PCT.default)
  const toleranceError = fixToleranceError(tolerancePct)
  const create = useMutation({
    mutationFn: () =>
      assessmentsApi.create({
        ...source,
        versions: names(versions),
        baseline: baseline.trim() || null,
        budget_min: budget,
        fix_tolerance: tolerancePct / 100,
      }),
    onSuccess: (made) => void navigate(`/assessments/${made.id}`),
  })
  if (!mayAct) return null
  if (!open)
    return (
      <button type="button" className="btn btn-primary" data-testid="assess-button" onClick={() => setOpen(true)}>
        Assess an upgrade
      </button>
    )
  return (
    <form
      className="card"
      data-testid="assess-form"
      onSubmit={(e) => {
        e.preventDefault()
        create.mutate()
      }}
    >
      <div className="schedule-fields">
        <label title="Lab targets of the new versions, comma-separated (mariadb-11.8, mysql-9.7).">
          New versions{' '}
          <input name="assess-versions" value={versions} onChange={(e) => setVersions(e.target.value)} required />
        </label>
        <label title="The lab target running the team's current version: the replay's baseline (none: no replay).">
          Baseline{' '}
          <input name="assess-baseline" value={baseline} onChange={(e) => setBaseline(e.target.value)} />
        </label>
        <label title="Minutes in all; steps not started by then are reported not evaluated.">
          Budget minutes{' '}
          <input name="assess-budget" type="number" min={1} max={1440} value={budget} onChange={(e) => setBudget(Number(e.target.value))} />
        </label>
        <label title="A slower query's fix search calls a remedy proven when the query is then decided at most this much slower than on the old version (10 % = the fix search's default); each search gets at most half the slowdown the replay measured.">
          Fix tolerance (%){' '}
          <input
            name="assess-fix-tolerance"
            type="number"
            min={FIX_TOLERANCE_PCT.min}
            max={FIX_TOLERANCE_PCT.max}
            step="any"
            value={Number.isNaN(tolerancePct) ? '' : tolerancePct}
            aria-invalid={toleranceError != null}
            onChange={(e) => setTolerancePct(e.target.value === '' ? Number.NaN : Number(e.target.value))}
          />
        </label>
      </div>
      {toleranceError && (
        <p className="error-box" role="alert" data-testid="assess-fix-tolerance-error">
          {toleranceError}
        </p>
      )}
      <button
        type="submit"
        className="btn btn-primary"
        data-testid="assess-start"
        disabled={create.isPending || names(versions).length === 0 || toleranceError != null}
      >
        Start the assessment
      </button>
      <ErrorBox error={create.error} title="Assessment refused" />
    </form>
  )
}
