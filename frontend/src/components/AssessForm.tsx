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

const names = (text: string) =>
  text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)

/** "Assess an upgrade": the new versions' lab targets, the baseline (the team's current version on a
 * lab target) and the budget in minutes; opens the assessment's page once queued. */
export function AssessForm({ source, mayAct }: Props) {
  const navigate = useNavigate()
  const [open, setOpen] = useState(false)
  const [versions, setVersions] = useState('')
  const [baseline, setBaseline] = useState('')
  const [budget, setBudget] = useState(60)
  const create = useMutation({
    mutationFn: () =>
      assessmentsApi.create({ ...source, versions: names(versions), baseline: baseline.trim() || null, budget_min: budget }),
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
      </div>
      <button type="submit" className="btn btn-primary" data-testid="assess-start" disabled={create.isPending || names(versions).length === 0}>
        Start the assessment
      </button>
      <ErrorBox error={create.error} title="Assessment refused" />
    </form>
  )
}
