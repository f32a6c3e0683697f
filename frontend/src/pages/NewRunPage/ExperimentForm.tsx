import { useMemo, useRef, useState, type FormEvent } from 'react'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from 'react-router-dom'
import { api } from '../../api/client'
import type { Policy, Run, Target, Workload } from '../../api/models'
import type { ExperimentCreate } from '../../client'
import { ParameterFields } from './ParameterFields'
import { initialSchedule, scheduleBody, type ScheduleState } from './schedule'
import { ScheduleFields } from './ScheduleFields'
import { defaultTexts, fieldSpecs, parametersFrom } from './parameters'
import { VariantRow } from '../../components/VariantRow/VariantRow'
import { WorkloadInfo } from './WorkloadInfo'
import { presetChoices, toVariantSpec, type VariantRowState } from '../../components/VariantRow/variants'
import { RUN_LISTS_KEY } from '../../queries/runs'
import { PendingButton } from '../../components/PendingButton'

interface Props {
  targets: Target[]
  workloads: Workload[]
}

/** Article 001's comparison: default vs redo log off, on a MySQL target when there is one. */
function initialRows(targets: Target[]): VariantRowState[] {
  // The first rows start on a server the lab runs itself: an existing server is chosen on purpose.
  const own = targets.filter((t) => t.provisioner !== 'existing')
  const mysql = own.find((t) => t.flavor === 'mysql')
  const target = (mysql ?? own[0] ?? targets[0])?.name ?? ''
  return [
    { key: 1, target, preset: 'default', name: '', optionsText: '' },
    { key: 2, target, preset: mysql ? 'redo-off' : 'skip-log-bin', name: '', optionsText: '' },
  ]
}

/** Client-side checks only for what the server can't be asked about sensibly. */
function validate(iterations: string, rows: VariantRowState[]): string | null {
  const n = Number(iterations)
  if (iterations.trim() === '' || !Number.isInteger(n) || n < 1) {
    return 'iterations: must be a whole number of at least 1'
  }
  if (rows.length === 0) return 'variants: add at least one variant'
  const missing = rows.findIndex((r) => !r.target)
  if (missing !== -1) return `variants.${missing}.target: choose a target`
  return null
}

export function ExperimentForm({ targets, workloads }: Props) {
  const navigate = useNavigate()
  const queryClient = useQueryClient()

  const [name, setName] = useState('')
  const [workloadSlug, setWorkloadSlug] = useState(workloads[0].slug)
  const [iterations, setIterations] = useState(String(workloads[0].default_iterations))
  const [rows, setRows] = useState<VariantRowState[]>(() => initialRows(targets))
  const [paramTexts, setParamTexts] = useState<Record<string, string>>(() =>
    defaultTexts(workloads[0].parameters_default),
  )
  const [policy, setPolicy] = useState<Policy>(workloads[0].default_policy)
  const [schedule, setSchedule] = useState<ScheduleState>(initialSchedule)
  const [clientError, setClientError] = useState<string | null>(null)
  const nextKey = useRef(3)
  // If the experiment was created but starting the run failed, a retry with the
  // same payload starts a run of that experiment instead of creating a duplicate.
  const created = useRef<{ payload: string; id: number } | null>(null)

  const workload = workloads.find((w) => w.slug === workloadSlug) ?? workloads[0]
  const presets = useMemo(() => presetChoices(workload.presets), [workload])
  const paramSpecs = useMemo(() => fieldSpecs(workload.parameters_schema), [workload])
  // An existing server the lab cannot restart takes warm runs only (cold policies are refused).
  const noRestart = warmOnlyTargets(rows, targets)
  const effectivePolicy: Policy = noRestart.length > 0 ? 'warm' : policy

  const submit = useMutation({
    mutationFn: async (body: ExperimentCreate): Promise<Run> => {
      const payload = JSON.stringify(body)
      let experimentId = created.current?.payload === payload ? created.current.id : null
      if (experimentId === null) {
        const experiment = await api.createExperiment(body)
        experimentId = experiment.id
        created.current = { payload, id: experiment.id }
      }
      return api.startRun(experimentId)
    },
    onSuccess: (run) => {
      void queryClient.invalidateQueries({ queryKey: RUN_LISTS_KEY })
      navigate(`/runs/${run.id}`)
    },
  })

  function updateRow(key: number, patch: Partial<VariantRowState>) {
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...patch } : r)))
  }

  function addRow() {
    const last = rows[rows.length - 1]
    const key = nextKey.current++
    setRows((rs) => [
      ...rs,
      { key, target: last?.target ?? targets[0]?.name ?? '', preset: 'default', name: '', optionsText: '' },
    ])
  }

  function removeRow(key: number) {
    setRows((rs) => rs.filter((r) => r.key !== key))
  }

  function onWorkloadChange(slug: string) {
    setWorkloadSlug(slug)
    const w = workloads.find((x) => x.slug === slug)
    if (w) {
      setIterations(String(w.default_iterations))
      setParamTexts(defaultTexts(w.parameters_default))
      setPolicy(w.default_policy)
    }
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault()
    const scheduled = scheduleBody(schedule)
    const problem = validate(iterations, rows) ?? (typeof scheduled === 'string' ? scheduled : null)
    setClientError(problem)
    if (problem || typeof scheduled === 'string') return
    const { rounds, block } = scheduled
    const body: ExperimentCreate = {
      workload: workload.slug,
      // interleaved with a block: rounds x block iterations, so the server derives the count
      iterations: block != null && rounds != null ? rounds * block : Number(iterations),
      variants: rows.map(toVariantSpec),
      parameters: parametersFrom(paramSpecs, paramTexts),
      policy: effectivePolicy,
      ...scheduled,
    }
    const trimmed = name.trim()
    if (trimmed) body.name = trimmed
    submit.mutate(body)
  }

  const formError = clientError ?? (submit.error ? submit.error.message : null)

  return (
    <form className="experiment-form" onSubmit={onSubmit} noValidate>
      <section className="form-section">
        <div className="field">
          <label htmlFor="experiment-name">Name <span className="muted">(optional)</span></label>
          <input
            id="experiment-name"
            data-testid="experiment-name"
            type="text"
            value={name}
            placeholder="e.g. 8.0 vs 8.4, redo log off"
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <div className="field-row">
          <div className="field grow">
            <label htmlFor="workload-select">Workload</label>
            <select
              id="workload-select"
              data-testid="workload-select"
              value={workloadSlug}
              onChange={(e) => onWorkloadChange(e.target.value)}
            >
              {workloads.map((w) => (
                <option key={w.slug} value={w.slug}>
                  {w.title} ({w.slug})
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="iterations-input">Iterations per variant</label>
            <input
              id="iterations-input"
              data-testid="iterations-input"
              type="number"
              min={1}
              step={1}
              value={iterations}
              onChange={(e) => setIterations(e.target.value)}
            />
          </div>
        </div>
        <ScheduleFields value={schedule} onChange={(patch) => setSchedule((s) => ({ ...s, ...patch }))} />
        <WorkloadInfo workload={workload} />
      </section>

      <section className="form-section">
        <h2>Parameters</h2>
        <ParameterFields
          specs={paramSpecs}
          texts={paramTexts}
          onChange={(key, text) => setParamTexts((t) => ({ ...t, [key]: text }))}
        />
        <div className="field">
          <label htmlFor="policy-select">Cold / warm</label>
          <select
            id="policy-select"
            data-testid="policy-select"
            value={effectivePolicy}
            onChange={(e) => setPolicy(e.target.value as Policy)}
          >
            {workload.policies.filter((p) => noRestart.length === 0 || p.name === 'warm').map((p) => (
              <option key={p.name} value={p.name} title={p.description}>
                {p.name}: {p.description}
              </option>
            ))}
          </select>
          {noRestart.length > 0 && (
            <p className="hint" data-testid="warm-only-note">
              Warm only: {noRestart.join(', ')} cannot be restarted by the lab (see the target page), so cold
              policies are refused.
            </p>
          )}
        </div>
      </section>

      <section className="form-section">
        <h2>Variants</h2>
        {rows.length === 0 && <p className="muted">No variants. Add at least one.</p>}
        {rows.map((row, i) => (
          <VariantRow
            key={row.key}
            index={i}
            row={row}
            targets={targets}
            presets={presets}
            onChange={(patch) => updateRow(row.key, patch)}
            onRemove={() => removeRow(row.key)}
          />
        ))}
        <button type="button" className="btn btn-secondary" data-testid="add-variant" onClick={addRow}>
          + Add variant
        </button>
      </section>

      {formError && (
        <div className="error-box" role="alert" data-testid="form-error">
          {formError}
        </div>
      )}

      <div className="form-actions">
        <PendingButton type="submit" pending={submit.isPending} busy="Starting…" className="btn btn-primary" testId="run-submit">
          Run
        </PendingButton>
      </div>
    </form>
  )
}

/** Targets of the variants that are existing servers without the restart capability. */
function warmOnlyTargets(rows: VariantRowState[], targets: Target[]): string[] {
  const names = new Set(rows.map((r) => r.target))
  return targets
    .filter((t) => names.has(t.name) && t.capabilities?.checks.some((c) => c.name === 'restart' && !c.available))
    .map((t) => t.name)
}
