import type { Replay } from './replay'
// Hand-written mirrors of the backend's JSON (base path /api).

export type Flavor = 'mysql' | 'mariadb'

export interface Target {
  id: number
  name: string
  flavor: Flavor
  version: string | null
  /** local, docker, tarball or existing. */
  provisioner: string
  /** Its data may be destroyed: writing templates and custom SQL may run there. */
  disposable?: boolean
  /** Existing servers only: what the lab may do there, detected from the server. */
  capabilities?: Capabilities | null
}

/** One capability of an existing server: available, and how it was found (or the server's words). */
export interface Capability {
  name: string
  available: boolean
  detail: string
}

/** GET /api/targets/{name}: capabilities (backend targets/capabilities.py). */
export interface Capabilities {
  detected_at: string
  user: string
  flavor: Flavor
  version: string
  version_comment: string
  managed_service: string | null
  read_only: boolean
  super_read_only: boolean | null
  log_bin: boolean
  secure_file_priv: string | null
  privileges: string[]
  checks: Capability[]
}

/** A target's page: where an existing server answers (never its password). */
export interface TargetDetail extends Target {
  connection: {
    host: string
    port: number
    user: string
    database: string
    ssl_ca: string | null
    ssl_verify_identity: boolean
  } | null
}

/** POST /api/targets for an existing server. */
export interface ExistingTargetCreate {
  name: string
  flavor: Flavor
  provisioner: 'existing'
  disposable: boolean
  restart_test: boolean
  settings: {
    host: string
    port: number
    user: string
    password: string
    database: string
    ssl_ca?: string
    ssl_verify_identity: boolean
  }
}

export interface Preset {
  name: string
  description: string
  /** Server flavors that support this preset, e.g. "redo-off" is ["mysql"]. */
  flavors: string[]
}

/** A series the source article published: values in `unit` at `points` (runs, thread counts). */
export interface PublishedFigure {
  case: string
  unit: string
  points: string[]
  values: number[]
}

export type Policy = 'warm' | 'cold_first' | 'cold_each_group' | 'cold_every'

export interface PolicyInfo {
  name: Policy
  description: string
}

/** A JSON schema property as pydantic writes it (the subset the parameter form reads). */
export interface SchemaProperty {
  type?: string
  title?: string
  description?: string
  default?: unknown
  enum?: unknown[]
  items?: SchemaProperty
  anyOf?: SchemaProperty[]
  minimum?: number
  maximum?: number
  $ref?: string
}

export interface ParametersSchema {
  properties?: Record<string, SchemaProperty>
  required?: string[]
  $defs?: Record<string, SchemaProperty>
}

export interface Workload {
  slug: string
  title: string
  article: string
  description: string
  /** The article's set-up (hardware, versions, data size). */
  setup: string
  published: PublishedFigure[]
  default_iterations: number
  default_policy: Policy
  /** X axis of a sweep template ("threads"), or null. */
  sweep: string | null
  parameters_schema: ParametersSchema
  parameters_default: Record<string, unknown>
  server_options: OptionMap
  policies: PolicyInfo[]
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
  /** SET GLOBAL name = value after start. */
  set_global?: Record<string, string>
  /** SET SESSION name = value on the workload connection. */
  set_session?: Record<string, string>
  /** Allow-listed instance statements, e.g. ALTER INSTANCE DISABLE INNODB REDO_LOG. */
  instance?: string[]
}

export interface ExperimentCreate {
  name?: string
  workload: string
  iterations: number
  variants: VariantSpec[]
  parameters?: Record<string, unknown>
  policy?: Policy
  /** interleaved (default): rounds of shuffled blocks; sequential: one variant after another. */
  schedule?: ScheduleKind
  /** Interleaved rounds (default 10; a verdict needs at least 5). */
  rounds?: number
  /** Iterations per block (default: iterations / rounds). */
  block?: number
  /** Add a second instance of the first variant, named "<baseline> (A/A)". */
  aa_control?: boolean
  /** Seed of the per-round shuffle (default: random, stored). */
  seed?: number
}

export type ScheduleKind = 'interleaved' | 'sequential'

/** run.schedule as executed: the variant order (indexes) of every round. */
export interface RunSchedule {
  kind: ScheduleKind
  seed: number
  rounds: number
  block: number
  order: number[][]
}

export type VariantStatus = 'pending' | 'running' | 'succeeded' | 'failed'

export interface VariantState {
  variant_index: number
  name: string
  target: string
  status: VariantStatus
  error: string | null
  is_aa_control: boolean
}

/** GET /api/runs/{id}/context: per variant what produced its numbers, captured at instance start. */
export interface VariantContext extends VariantState {
  provisioner: string | null
  image_or_binary: string | null
  version: string | null
  version_comment: string | null
  option_file: string | null
  variables: Record<string, string> | null
  started_at: string | null
  finished_at: string | null
}

export interface RunContext {
  run_id: number
  schedule: RunSchedule | null
  context: {
    host: {
      cpu_model: string | null
      cores: number | null
      memory_bytes: number | null
      kernel: string
      storage: { path: string; mount_point: string | null; fs_type: string | null; device: string | null }
    }
    upgradelab_version: { package: string | null; git_commit: string | null }
  } | null
  variants: VariantContext[]
}

export interface ResolvedVariant {
  name: string
  target: string
  preset: string
  options: OptionMap
  redo_log: 'enabled' | 'disabled'
  set_global?: Record<string, string>
  set_session?: Record<string, string>
  instance?: string[]
}

export interface Experiment {
  id: number
  name: string
  workload: string
  iterations: number
  parameters: Record<string, unknown>
  policy: Policy
  variants: ResolvedVariant[]
  schedule: ScheduleKind
  rounds: number
  block: number
  aa_control: boolean
  seed: number | null
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
  policy: Policy
  /** Dataset preparation progress, while preparing (null otherwise). */
  progress: DatasetProgress | null
  /** The schedule as planned (null before the run started). */
  schedule?: RunSchedule | null
  schedule_kind?: ScheduleKind
  rounds?: number
  block?: number
  aa_control?: boolean
  variant_states?: VariantState[]
}

export interface DatasetProgress {
  phase: string
  rows?: number
  rows_total?: number
  bytes?: number
  elapsed_s?: number
  estimate_s?: number | null
  spec_hash?: string
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

/** Per variant and statement label: client-side seconds. */
export interface StatementRow {
  variant: string
  variant_index: number
  statement: string
  count: number
  median_s: number | null
  p95_s: number | null
  total_s: number
}

export interface RunResults {
  run: Run
  series: Series[]
  summary: SummaryRow[]
}

/** One iteration's probe values; null: the probe was unavailable or the value undefined. */
export interface ProbeIteration {
  iteration: number
  /** 1 - reads / read_requests; null with no read requests (not 100%). */
  hit_rate: number | null
  read_requests: number | null
  reads: number | null
  pages_read: number | null
  /** Bytes, Innodb_data_read. */
  bytes_read: number | null
  /** Seconds, the workload thread's statement SUM_TIMER_WAIT / 1e12. */
  server_s: number | null
  statements: number | null
  /** Seconds, the iteration's client-side time. */
  client_s: number | null
}

export interface MutexWait {
  event_name: string
  count: number
  wait_ms: number
}

export interface UnavailableProbe {
  probe: string
  reason: string
}

export interface VariantProbes {
  variant: string
  variant_index: number
  unavailable: UnavailableProbe[]
  iterations: ProbeIteration[]
  top_mutex_waits: MutexWait[]
}

export interface RunProbes {
  run_id: number
  status: RunStatus
  variants: VariantProbes[]
}

/** One iteration with its group ("threads=16") and summed metrics (tps, qps, p50_ms ...). */
export interface IterationRow {
  variant_index: number
  variant: string
  iteration: number
  group: string
  elapsed_s: number
  metrics: Record<string, number>
}

/** Per variant and group: the medians a sweep chart draws. */
export interface GroupPoint {
  variant_index: number
  variant: string
  group: string
  iterations: number
  median_s: number | null
  metrics: Record<string, number>
}

export interface RunGroups {
  iterations: IterationRow[]
  groups: GroupPoint[]
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

export type Verdict =
  | 'regression'
  | 'improvement'
  | 'no significant difference'
  | 'inconclusive'
  | 'insufficient rounds'

/** variant / baseline of a row's metric with its 95% interval from the rounds (backend results/verdicts.py). */
export interface VerdictRead {
  ratio: number
  low: number
  high: number
  rounds: number
  method: 'paired rounds' | 'unpaired rounds' | 'within-block bootstrap'
  /** smallest detectable change: the interval's half-width as a fraction, sqrt(high / low) - 1 */
  mde: number
  verdict: Verdict | null
  reason: string
}

/** The run's A/A control against variant 0: this run's noise floor. */
export interface FloorRead {
  ratio: number
  low: number
  high: number
  rounds: number
}

/** One variant x group x primary metric. *_s: iteration seconds; median/p95: the metric in `unit`. */
export interface ComparisonRow {
  key: string
  run_id: number
  run_name: string
  variant_index: number
  variant: string
  label: string
  is_baseline: boolean
  is_aa_control: boolean
  group: string
  metric: string
  unit: string
  higher_is_better: boolean
  iterations: number
  rounds: number
  median_s: number | null
  p95_s: number | null
  mean_s: number | null
  median: number | null
  p95: number | null
  ratio: VerdictRead | null
  aa_floor: FloorRead | null
}

/** Per-round medians of one variant, group and metric. */
export interface RoundSeries {
  key: string
  label: string
  group: string
  metric: string
  points: { round: number; value: number }[]
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
  min_rounds: number
  resamples: number
  seed: number
  stored: boolean
  rows: ComparisonRow[]
  series: ComparisonSeries[]
  rounds: RoundSeries[]
}

/** A variable whose value differs between variants (GET /api/runs/{id}/variables-diff): one value per
 * variant, in the order of RunContext.variants. */
export interface VariableDiff {
  name: string
  values: (string | null)[]
}

export interface ShareLink {
  id: number
  token: string
  kind: 'run' | 'comparison' | 'replay'
  run_id: number | null
  comparison: ComparisonQuery | null
  replay_id?: number | null
  created_at: string
  revoked_at: string | null
  path: string
}

export interface SharedView {
  kind: 'run' | 'comparison' | 'replay'
  run: RunResults | null
  comparison: Comparison | null
  replay?: Replay | null
}
