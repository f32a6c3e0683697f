// Attributions (which changed settings explain a gap): the calls, over the generated client.
import * as sdk from '../client/sdk.gen'
import type { AttributionCreate } from '../client'
import { unwrap } from './client'

export const attributionsApi = {
  create: (body: AttributionCreate) => unwrap(sdk.createAttribution({ body })),
  get: (id: number) => unwrap(sdk.getAttribution({ path: { attribution_id: id } })),
  cancel: (id: number) => unwrap(sdk.cancelAttribution({ path: { attribution_id: id } })),
  share: (id: number) => unwrap(sdk.shareAttribution({ path: { attribution_id: id } })),
  /** Read-only, without sign-in (a share link). */
  shared: (token: string) => unwrap(sdk.sharedAttribution({ path: { token } })),
}

/** The UI address of a share link (App.tsx's public routes): what the upgrade lead opens. */
export const attributionSharePath = (token: string) => `/share/attributions/${token}`

/** A share of the log-ratio gap (fractions) with its 95 % interval. */
export interface Share {
  share: number
  low: number
  high: number
}

/** One member of the found set (backend attribution/report.py). */
export interface Member {
  name: string
  known: string | null
  baseline: string | null
  variant: string | null
  lines: string[]
  alone: Share | null
  contribution: number | null
  low: number | null
  high: number | null
}

/** A test beside the found set (backend attribution/report.py): share null when the budget ended first. */
export interface BesideTest {
  subset: string[]
  stage: string
  share: number | null
  low: number | null
  high: number | null
  runs: number
  p: number
  level: number
  decided: boolean
  screening: Share | null
}

/** The result JSON (backend attribution/report.py `build`). */
export interface AttributionResult {
  outcome: string
  target_share: number
  complete: boolean
  runs: number
  minutes: number
  set: string[]
  set_share: Share | null
  all_share: Share | null
  members: Member[]
  interaction: number | null
  interacts?: boolean
  unexplained: number | null
  lines: string[]
  /** Candidates outside the set that moved the time alone, decided beside the set (backend
   * attribution/search.py `beside`): `alone` the share decided on, `decided_by` "screening" (ddmin's own
   * measurement), "confirmation" (fresh runs, `runs` pooled) or "group" (found by splitting a group);
   * one-sided `p` and the `level` it met (Holm); `screening` ddmin's measurement of a confirmed one. */
  also?: {
    name: string
    alone: Share
    lines: string[]
    known: string | null
    decided_by?: string
    runs?: number
    p?: number
    level?: number
    screening?: Share | null
  }[]
  /** Every test beside the set, decided or not (a subset: one candidate, or a group). */
  beside?: BesideTest[]
  beside_complete?: boolean
  /** Candidates the server refused during the search (its words), left out of the subsets. */
  refused?: { name: string; reason: string }[]
}

/** One step run and its tested subsets; `gap`: the variant as it is against the baseline in that run
 * (attribution/steps.py measure: its ratio and 95 % interval, unset while the run goes on). */
export interface Step {
  step: number
  run_id: number
  subsets: string[][]
  /** "step" (ddmin) or "beside" (the tests beside the found set); unset in attributions stored before. */
  phase?: string
  gap?: { ratio: number; low: number | null; high: number | null; verdict: string } | null
  tests?: { subset: string[]; share: number; low: number; high: number; closes: boolean }[]
}
