import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useNavigate } from 'react-router-dom'
import { fixSearchesApi } from '../../api/fixsearches'
import type { FingerprintResult, FixSearchRead } from '../../client'
import { ErrorBox } from '../../components/ErrorBox'
import { defaultFixVariant, FIX_DEFAULTS, FIX_SCOPES, fixVariants, searchState, type FixScope } from './findFix'

interface Props {
  replayId: number
  fingerprint: FingerprintResult
  /** The report's variants, baseline first. */
  variants: string[]
  baseline: string
  /** This fingerprint's fix searches, newest first. */
  searches: FixSearchRead[]
  /** Viewers see the searches but start none. */
  canStart: boolean
}

/** On a fingerprint's report row: its fix searches (linked, with their outcome) and "Find a fix",
 * which opens the search's options (the variant, rounds per candidate, budget, tolerance, try all),
 * starts it (POST /api/fixsearches) and goes to its page. */
export function FindFix({ replayId, fingerprint, variants, baseline, searches, canStart }: Props) {
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const choices = fixVariants(fingerprint, variants, baseline)
  const [open, setOpen] = useState(false)
  const [variant, setVariant] = useState(() => defaultFixVariant(choices))
  const [rounds, setRounds] = useState(FIX_DEFAULTS.rounds)
  const [budgetRounds, setBudgetRounds] = useState(FIX_DEFAULTS.budgetRounds)
  const [budgetMinutes, setBudgetMinutes] = useState(FIX_DEFAULTS.budgetMinutes)
  const [tolerancePct, setTolerancePct] = useState(FIX_DEFAULTS.tolerancePct)
  const [tryAll, setTryAll] = useState(FIX_DEFAULTS.tryAll)
  const [scope, setScope] = useState<FixScope>(FIX_DEFAULTS.scope)
  const create = useMutation({
    mutationFn: fixSearchesApi.create,
    onSuccess: (search) => {
      void queryClient.invalidateQueries({ queryKey: ['fixsearches', replayId] })
      void navigate(`/fixsearches/${search.id}`)
    },
  })
  if (choices.length === 0) return null
  return (
    <div className="fix-search" data-testid="find-fix">
      {searches.map((s) => (
        <div key={s.id} className="muted" data-testid="fix-search-link">
          <Link to={`/fixsearches/${s.id}`}>fix search {s.id}</Link> on {s.variant}: {searchState(s)}
        </div>
      ))}
      {canStart && !open && (
        <button type="button" className="btn btn-secondary btn-small" data-testid="find-fix-button" onClick={() => setOpen(true)}>
          Find a fix
        </button>
      )}
      {canStart && open && (
        <form
          className="card"
          data-testid="find-fix-form"
          onSubmit={(e) => {
            e.preventDefault()
            create.mutate({
              replay_id: replayId,
              fingerprint_id: fingerprint.fingerprint_id,
              variant,
              rounds,
              budget_rounds: budgetRounds,
              budget_minutes: budgetMinutes,
              tolerance: tolerancePct / 100,
              try_all: tryAll,
              scope,
            })
          }}
        >
          {/* the new-run form's grid of fields (styles.css .schedule-fields): a few columns, the switch on its own line */}
          <div className="schedule-fields">
            <label>
              Slower on{' '}
              <select name="fix-variant" value={variant} onChange={(e) => setVariant(e.target.value)}>
                {choices.map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.name}
                    {c.slower ? ' (slower)' : ''}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Remedies{' '}
              <select name="fix-scope" value={scope} onChange={(e) => setScope(e.target.value as FixScope)}>
                {FIX_SCOPES.map(([value, words]) => (
                  <option key={value} value={value}>
                    {words}
                  </option>
                ))}
              </select>
            </label>
            <label title="Rounds each candidate is measured, interleaved with the baseline and the variant as it is (a verdict needs 5); an undecided one gets more, 5 at a time.">
              Rounds per candidate{' '}
              <input name="fix-rounds" type="number" min={5} max={100} value={rounds} onChange={(e) => setRounds(Number(e.target.value))} />
            </label>
            <label title="Rounds at most, all candidates together.">
              Budget rounds{' '}
              <input
                name="fix-budget-rounds"
                type="number"
                min={5}
                max={3000}
                value={budgetRounds}
                onChange={(e) => setBudgetRounds(Number(e.target.value))}
              />
            </label>
            <label title="No candidate is started after this many minutes.">
              Budget minutes{' '}
              <input
                name="fix-budget-minutes"
                type="number"
                min={0.1}
                max={1440}
                step="any"
                value={budgetMinutes}
                onChange={(e) => setBudgetMinutes(Number(e.target.value))}
              />
            </label>
            <label title="A remedy restores when its time is decided at most this much slower than the baseline's, with equal results.">
              Tolerance (%){' '}
              <input
                name="fix-tolerance"
                type="number"
                min={1}
                max={100}
                step="any"
                value={tolerancePct}
                onChange={(e) => setTolerancePct(Number(e.target.value))}
              />
            </label>
            <label className="whole-row">
              <input type="checkbox" name="fix-try-all" checked={tryAll} onChange={(e) => setTryAll(e.target.checked)} /> Try
              every candidate (else stop at the first that restores)
            </label>
          </div>
          <button type="submit" className="btn btn-primary" data-testid="find-fix-start" disabled={!variant || create.isPending}>
            Start
          </button>{' '}
          <button type="button" className="btn btn-secondary" onClick={() => setOpen(false)}>
            Close
          </button>
          <ErrorBox error={create.error} title="Fix search refused" testId="find-fix-error" />
        </form>
      )}
    </div>
  )
}
