import type { ReactNode } from 'react'
import { isFinal } from '../../api/models'
import type { FixSearchRead } from '../../client'
import { JobHeader } from '../../components/JobPage/JobHeader'
import { OriginLink } from '../../components/JobPage/OriginLink'
import { CandidatesTable } from './CandidatesTable'
import { RemedyCard } from './RemedyCard'
import { outcomeSentence, restoringRemedy } from './rows'

const SCOPES: Record<string, string> = {
  statement: 'statement-level only',
  both: 'statement-level, and a restoring setting again as a global one',
  global: 'settings as global remedies only',
}

interface Props {
  search: FixSearchRead
  /** Link the replay to its page: signed in only (a share link's reader cannot open it). */
  linkReplay: boolean
  /** Beside the status (the signed-in page's Cancel). */
  actions?: ReactNode
  /** After the description (the share link). */
  tools?: ReactNode
}

/** One fix search as its page and its share link show it, its answer first: what it fixes (the
 * fingerprint, from which replay), progress, the outcome, the remedy that restores with what to apply
 * (the hint or SET STATEMENT prefix and the statements as rewritten); then how it searched (the
 * tolerance, rounds, scope and budget) and every candidate in the order tried. */
export function FixSearchView({ search, linkReplay, actions, tools }: Props) {
  const { progress, result } = search
  const final = isFinal(search.status)
  const remedy = restoringRemedy(search)
  const globalRemedy = restoringRemedy(search, 'global_remedy')
  const replay = `replay ${search.replay_id}`
  return (
    <div className="fix-search">
      <JobHeader
        title={`Find a fix: ${search.variant} against ${search.baseline}`}
        status={search.status}
        statusTestId="fix-status"
        actions={actions}
      />
      <p>
        <code data-testid="fix-fingerprint">{search.fingerprint}</code>{' '}
        <span className="muted">
          from <OriginLink to={`/replays/${search.replay_id}`} linked={linkReplay} testId="fix-replay" text={replay} />
        </span>
      </p>
      {tools}
      {progress && !final && (
        <p data-testid="fix-progress">
          {progress.phase}
          {progress.tried != null && `: ${progress.tried} of ${search.candidates.length || '?'} candidates tried`}
          {progress.rounds_done != null && `, ${progress.rounds_done} of ${search.budget_rounds} rounds`}
          {progress.minutes != null && `, ${progress.minutes} min`}
          {progress.message && progress.message !== progress.phase && ` (${progress.message})`}
        </p>
      )}
      {search.error && (
        <p className="error-box" data-testid="fix-error">
          {search.error}
        </p>
      )}
      {result && (
        <section data-testid="fix-result">
          <h2 data-testid="fix-outcome" data-outcome={result.outcome}>
            {outcomeSentence(result)}
          </h2>
          {result.not_tried.length > 0 && (
            <p className="muted" data-testid="fix-not-tried">
              Not tried: {result.not_tried.join(', ')}.
            </p>
          )}
          {(result.unused ?? []).length > 0 && (
            <p className="muted" data-testid="fix-unused">
              Never candidates, the variant&apos;s own help calls them unused: {(result.unused ?? []).join(', ')}.
            </p>
          )}
          {result.timing_cpu && <p className="muted">Timing: {result.timing_cpu}.</p>}
        </section>
      )}
      {remedy && <RemedyCard remedy={remedy} title="Remedy" testId="fix-remedy" />}
      {globalRemedy && globalRemedy.name !== remedy?.name && (
        <RemedyCard remedy={globalRemedy} title="Global remedy" testId="fix-global-remedy" />
      )}
      <h2>How it searched</h2>
      <p className="muted" data-testid="fix-method">
        A remedy restores when its time is decided at most {Math.round(search.tolerance * 100)} % slower than the
        baseline&apos;s (the upper end of its interval) and its results equal the baseline&apos;s. Each candidate: {search.rounds}{' '}
        rounds of {search.passes} pass{search.passes === 1 ? '' : 'es'}, interleaved with the baseline and the variant as it is
        {search.try_all ? '; every candidate measured' : '; it stops at the first that restores'}. Remedies:{' '}
        {SCOPES[search.scope] ?? search.scope}; a global one restores only with its side effects checked on the whole
        replay ({search.side_rounds} rounds per other fingerprint, at most {search.side_minutes} minutes). Budget:{' '}
        {search.budget_scaled && !search.budget_rounds ? 'rounds scaled to the candidates' : `${search.budget_rounds} rounds`}
        {search.budget_scaled && search.budget_rounds ? ' (scaled to the candidates)' : ''}, {search.budget_minutes} minutes.
      </p>
      <h2>Candidates</h2>
      <CandidatesTable search={search} />
    </div>
  )
}
