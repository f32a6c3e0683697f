// Hand-written mirrors of the backend's JSON (base path /api).

export type Flavor = 'mysql' | 'mariadb'

export interface Target {
  id: number
  name: string
  flavor: Flavor
  version: string | null
  provisioner: string
}

export interface Preset {
  name: string
  description: string
  /** Server flavors that support this preset, e.g. "redo-off" is ["mysql"]. */
  flavors: string[]
}

export interface Workload {
  slug: string
  title: string
  article: string
  description: string
  default_iterations: number
  presets: Preset[]
}

export type OptionMap = Record<string, string | null>

export interface VariantSpec {
  /** Target name. */
  target: string
  /** A preset name, or several joined with "+". */
  preset: string
  name?: string
  options?: OptionMap
}

export interface ExperimentCreate {
  name?: string
  workload: string
  iterations: number
  variants: VariantSpec[]
}

export interface ResolvedVariant {
  name: string
  target: string
  preset: string
  options: OptionMap
  redo_log: 'enabled' | 'disabled'
}

export interface Experiment {
  id: number
  name: string
  workload: string
  iterations: number
  parameters: Record<string, unknown>
  variants: ResolvedVariant[]
  created_at: string
}

export type RunStatus =
  | 'queued'
  | 'provisioning'
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'cancelled'

export const FINAL_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled']

export function isFinal(status: RunStatus): boolean {
  return FINAL_STATUSES.includes(status)
}

export interface Run {
  id: number
  experiment_id: number
  name: string
  notes?: string | null
  targets?: string[]
  workload: string
  status: RunStatus
  error: string | null
  created_at: string
  started_at: string | null
  finished_at: string | null
  /** Iterations per variant. */
  iterations: number
  /** Variant names, in order. */
  variants: string[]
  current_variant: number | null
  /** Iterations done across all variants. */
  iterations_done: number
  iterations_total: number
}

export interface RunList {
  items: Run[]
  total: number
  limit: number
  offset: number
}

export interface Point {
  iteration: number
  elapsed_s: number
}

export interface Series {
  variant: string
  variant_index: number
  points: Point[]
}

export interface SummaryRow {
  variant: string
  variant_index: number
  iterations: number
  median_s: number | null
  p95_s: number | null
  total_s: number
  /** This variant's median / first variant's median. */
  ratio: number | null
}

export interface RunResults {
  run: Run
  series: Series[]
  summary: SummaryRow[]
}

export type Role = 'viewer' | 'operator' | 'admin'

export interface User {
  id: number
  username: string
  role: Role
}

export interface RunFilters {
  workload?: string
  target?: string
  status?: string
  created_from?: string
  created_to?: string
  q?: string
  sort?: string
  order?: 'asc' | 'desc'
}

export type Verdict = 'regression' | 'improvement' | 'no significant difference'

export interface RatioRead {
  ratio: number
  low: number
  high: number
  verdict: Verdict | null
}

export interface ComparisonRow {
  key: string
  run_id: number
  run_name: string
  variant_index: number
  variant: string
  label: string
  is_baseline: boolean
  iterations: number
  median_s: number | null
  p95_s: number | null
  mean_s: number | null
  median: RatioRead | null
  p95: RatioRead | null
}

export interface ComparisonSeries {
  key: string
  label: string
  points: Point[]
  total_points: number
}

export interface ComparisonQuery {
  runs: number[]
  baseline?: string | null
  warmup?: number
  threshold?: number
}

export interface Comparison {
  query: ComparisonQuery
  baseline: string
  unit: 's'
  confidence: number
  resamples: number
  seed: number
  stored: boolean
  rows: ComparisonRow[]
  series: ComparisonSeries[]
}

export interface ShareLink {
  id: number
  token: string
  kind: 'run' | 'comparison'
  run_id: number | null
  comparison: ComparisonQuery | null
  created_at: string
  revoked_at: string | null
  path: string
}

export interface SharedView {
  kind: 'run' | 'comparison'
  run: RunResults | null
  comparison: Comparison | null
}
