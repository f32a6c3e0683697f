"""The measurement library: how the lab measures statements on real servers, under the job kinds that
use it (a replay, a fix search, a run's variant settings). A kind imports these names from
`upgradelab.measurement` only, never a module of it (backend/pyproject.toml's contracts); tests and
bench/ scripts may reach the modules.

What it gives, by concept (the module that defines each, with its docstring's detail):

- Variants and their instances (opening.py, variant_settings.py): `ReplayVariant` (name, provisioner,
  option lines, `VariantSettings`) opened by `open_variant(variant, dataset, ...)` into an
  `OpenVariant` (the server up, the dataset loaded or reused, settings applied, tables analysed, the
  account connected, its `Clock`), on its own instance by a `VariantOpener` (what
  execution/instances.py `started` calls, its InstanceStarter); `VariantReplay` is what a variant
  measured (outcomes, pass values in seconds, work tallies, stage tallies per statement index).
  `with_clock_options` adds the performance_schema options the server clock needs;
  `settings_refusal` checks a variant's SET GLOBAL / SET SESSION / instance statements on a server
  (None, or "<setting>: <answer>"); `REPLAY_SESSION_VARIABLES` are the session variables a replay
  sets itself (a variant may not: `replay_session_variable` finds the first a variant sets).
- Datasets (dataset_load.py, dataset_records.py): `DumpDataset` (a dump's path, sha256 and
  databases), `file_sha256`, the kept datadir's record (`read_record`, `forget_record`).
- Sources (sources.py, querylog/): `parse_source(text, SourceFormat, ...)` -> the statements to
  replay (`SourceStatement`: sql, database, fingerprint, class id), sampled per query class
  (`DEFAULT_SAMPLE`); `SourceError` names what a source lacks; `open_log`/`read_events` read a slow
  or general log as pt-query-digest does (`text_stream`: a log given as text).
- Sessions as they ran (sessions.py, session_shapes.py, transactions.py): `log_sessions(stream,
  "general" | "slow")` and `history_sessions(HistoryRow rows of events_statements_history_long)`
  -> a `SessionLog` of `Session`s, each `SessionStatement` with its order, offset (seconds) and
  transaction boundary; sessions a source cut (mid-transaction at its start or end) dropped and
  listed as `CutPart`s; `SessionsError` past a bound (`MAX_SESSIONS` sessions, statements, characters).
- Sessions run together (session_driver.py): `run_sessions(sessions, SessionOpener, speed=...,
  timeout_s=...)` runs one trial, every session on its own connection and thread, gaps kept at the
  speed factor, each statement bounded, within `DriverBounds` (sessions, seconds, results), stopped
  by a cancel within a second -> `TrialRun` (each `StatementRun`: fingerprint, client latency,
  error code, rows; statements and transactions per second, wall clock); `DriverError` when a trial
  cannot start.
- Identical starting data per trial (trial_data.py): `copy_datadir(kept, trial)` copies a stopped
  server's kept datadir for a trial (`cp -a --reflink=auto`), timed apart from it -> `DatadirCopy`
  (bytes, seconds, filesystem); `DatadirCopyError` when it is no datadir, cp fails or a cancel came.
- What a trial measured (trial_summary.py, trial_server.py): `summarize_trial(TrialRun, sessions)`
  -> a `TrialSummary` (throughput, client p50/p95/p99 per fingerprint as `FingerprintLatency`,
  errors by code with an `ErrorSample`, rows changed); the server's side: `lock_counters` ->
  `LockCounters` (row lock waits and time, deadlocks; `since` a trial's start), `LockWaitSampler`
  (data_lock_waits / INNODB_LOCK_WAITS sampled -> `LockWaits`), `last_deadlock` (SHOW ENGINE
  INNODB STATUS), together a `ServerLocks`; `table_checksums` (the data at the end, one
  order-insensitive sha256 per table), stopped by a cancel with `TrialReadCancelled`; `digest_p95`
  -> `ServerP95` (the server's p95 per fingerprint from performance_schema's digest histograms,
  `DIGEST_SOURCE`, or why not), given to `summarize_trial` beside the client's, the fingerprints'
  samples from `fingerprint_samples`.
- A variant's trials from the same data (trial_run.py): `prepare_trials(provisioner, options,
  dataset)` loads or reuses the dataset, grants the writer account the dataset's databases only and
  keeps the stopped server's datadir aside -> a `TrialTarget`; `run_trial(target, sessions, ...)`
  copies the kept datadir back, starts, runs and measures the sessions, checksums, stops -> a
  `TrialMeasure` (a cancel in any `TrialPhase`: `TrialCancelled`, its phase named); `restore_datadir` puts
  the kept copy back at the job's end. A `TrialTarget`'s `VariantSettings` (SET GLOBAL, instance
  statements, SET SESSION) are applied on every trial's server and session connections, as a
  replay's variant applies them (variant_settings.py); one the server refuses: `SettingRefused`.
- Passes and rounds (passes.py, turns.py, engine.py, extension_plan.py, interrupt.py): a
  `StatementRunner` per open variant (`statement_runner`), `capture_outcomes` (each statement once),
  `statement_passes` (its timed passes), `round_turns` (who times what in a round, `Interleave`),
  `replay_rounds` (the whole replay: instances started together on one CPU, rounds interleaved,
  `Extension` of undecided statements); an `Interrupt` stops them from another thread
  (`ReplayCancelled` keeps what was measured). A job that times its own turns (a fix search's arms)
  takes each as `server_turn(server, settings)` on a `TurnServer` (its instance thawed, its
  settings in force on its connection while the turn lasts).
- Outcomes and checksums (outcomes.py, differences.py, causes.py): `Outcome` (kind, error, warnings,
  row count, ordered and unordered checksums, plan as `PlanStep`s), `explain` (the plan of one
  statement), `diff(base, other, statement, variant)` -> `StatementDiff` (with the known `Cause`
  and its `ErrorChange`: new, resolved, changed, same).
- Timing on one clock (timing.py, pairs.py): `Clock` ("server": TIMER_WAIT, "client"),
  `pair_clock` (the clock a pair is read on), `pass_values` (seconds per pass, by round),
  `paired_rounds`, `cost_rounds`, `aa_floor`, and `time_ratio` (variant / baseline, its interval at
  a confidence, decided at `THRESHOLD`, 10 %); `MIN_MEASURED_S` / `MAX_REPEATS` bound a statement's
  repeats in one pass.
- Counters (counters.py): `WorkTally` per statement and variant, `COUNTERS` / `BY_NAME` (name,
  column, unit), `fingerprint_work` -> `WorkCounters` (`CounterRange` per execution),
  `counter_changes` / `counter_moved` (`CounterChange`, beyond 1.5x), `work_columns`, `work_text`.
- Stages (stage_events.py): `StageTally` (seconds per stage per pass), `CPU` and `OUTSIDE`.
- Per-statement cost (statement_cost.py): `NULL_STATEMENT` ("DO 0") timed beside the user's,
  `per_statement_cost` -> `StatementCost` (microseconds with its interval), `cost_only`,
  `timing_text`.
- Workloads between kinds (workload.py): `MeasuredWorkload` (what a job measured: variants,
  sampled statements, skipped writes, dataset, bounds, its A/A control's floors; `WRITE_KINDS` the
  statement kinds that write), provided by a kind's `WorkloadSource` (its JobKind's `workload`) and
  read by another kind as `measured_workload(session, kind, job_id)` (a fix search: its replay's).
- Result shapes (shapes.py): the pydantic shapes above (`ReadShape` their base), as the replay's
  report stores them, and `ReplayVariantSpec` (a variant as a replay and a fix search store it).
"""

from upgradelab.measurement.counters import (
    BY_NAME,
    COUNTERS,
    WorkTally,
    fingerprint_work,
    work_text,
)
from upgradelab.measurement.counters import changes as counter_changes
from upgradelab.measurement.counters import columns as work_columns
from upgradelab.measurement.counters import moved as counter_moved
from upgradelab.measurement.dataset_load import DumpDataset, file_sha256
from upgradelab.measurement.dataset_records import forget_record, read_record
from upgradelab.measurement.differences import diff
from upgradelab.measurement.engine import Extension, replay_rounds
from upgradelab.measurement.interrupt import Interrupt, ReplayCancelled
from upgradelab.measurement.openers import VariantOpener
from upgradelab.measurement.opening import (
    OpenVariant,
    ReplayVariant,
    VariantReplay,
    open_variant,
    with_clock_options,
)
from upgradelab.measurement.outcomes import Outcome, PlanStep, explain
from upgradelab.measurement.pairs import (
    THRESHOLD,
    aa_floor,
    cost_rounds,
    paired_rounds,
    pass_values,
    time_ratio,
)
from upgradelab.measurement.passes import (
    StatementRunner,
    capture_outcomes,
    statement_passes,
    statement_runner,
)
from upgradelab.measurement.querylog.formats import open_log, read_events, text_stream
from upgradelab.measurement.session_driver import (
    DriverBounds,
    DriverError,
    SessionOpener,
    StatementRun,
    TrialRun,
    run_sessions,
)
from upgradelab.measurement.session_shapes import (
    MAX_SESSIONS,
    CutPart,
    HistoryRow,
    Session,
    SessionLog,
    SessionsError,
    SessionStatement,
)
from upgradelab.measurement.sessions import history_sessions, log_sessions
from upgradelab.measurement.shapes import (
    Cause,
    CounterChange,
    CounterRange,
    ErrorChange,
    ReadShape,
    ReplayVariantSpec,
    StatementCost,
    StatementDiff,
    WorkCounters,
)
from upgradelab.measurement.sources import (
    DEFAULT_SAMPLE,
    SourceError,
    SourceFormat,
    SourceStatement,
    parse_source,
)
from upgradelab.measurement.stage_events import CPU, OUTSIDE, StageTally
from upgradelab.measurement.statement_cost import NULL_STATEMENT, cost_only, timing_text
from upgradelab.measurement.statement_cost import statement_cost as per_statement_cost
from upgradelab.measurement.timing import MAX_REPEATS, MIN_MEASURED_S, Clock, pair_clock
from upgradelab.measurement.trial_data import DatadirCopy, DatadirCopyError, copy_datadir
from upgradelab.measurement.trial_run import Phase as TrialPhase
from upgradelab.measurement.trial_run import (
    TrialCancelled,
    TrialMeasure,
    TrialTarget,
    prepare_trials,
    restore_datadir,
    run_trial,
)
from upgradelab.measurement.trial_server import (
    DIGEST_SOURCE,
    LockCounters,
    LockWaits,
    LockWaitSampler,
    ServerLocks,
    ServerP95,
    TrialReadCancelled,
    digest_p95,
    last_deadlock,
    lock_counters,
    table_checksums,
)
from upgradelab.measurement.trial_summary import (
    ErrorSample,
    FingerprintLatency,
    TrialSummary,
    fingerprint_samples,
    summarize_trial,
)
from upgradelab.measurement.turns import Interleave, TurnServer, round_turns, server_turn
from upgradelab.measurement.variant_settings import (
    REPLAY_SESSION_VARIABLES,
    SettingRefused,
    VariantSettings,
    replay_session_variable,
    settings_refusal,
)
from upgradelab.measurement.workload import (
    WRITE_KINDS,
    MeasuredWorkload,
    WorkloadSource,
    measured_workload,
)

__all__ = [
    "BY_NAME",
    "COUNTERS",
    "CPU",
    "DEFAULT_SAMPLE",
    "DIGEST_SOURCE",
    "MAX_REPEATS",
    "MAX_SESSIONS",
    "MIN_MEASURED_S",
    "NULL_STATEMENT",
    "OUTSIDE",
    "REPLAY_SESSION_VARIABLES",
    "THRESHOLD",
    "WRITE_KINDS",
    "Cause",
    "Clock",
    "CounterChange",
    "CounterRange",
    "CutPart",
    "DatadirCopy",
    "DatadirCopyError",
    "DriverBounds",
    "DriverError",
    "DumpDataset",
    "ErrorChange",
    "ErrorSample",
    "Extension",
    "FingerprintLatency",
    "HistoryRow",
    "Interleave",
    "Interrupt",
    "LockCounters",
    "LockWaitSampler",
    "LockWaits",
    "MeasuredWorkload",
    "OpenVariant",
    "Outcome",
    "PlanStep",
    "ReadShape",
    "ReplayCancelled",
    "ReplayVariant",
    "ReplayVariantSpec",
    "ServerLocks",
    "ServerP95",
    "Session",
    "SessionLog",
    "SessionOpener",
    "SessionStatement",
    "SessionsError",
    "SettingRefused",
    "SourceError",
    "SourceFormat",
    "SourceStatement",
    "StageTally",
    "StatementCost",
    "StatementDiff",
    "StatementRun",
    "StatementRunner",
    "TrialCancelled",
    "TrialMeasure",
    "TrialPhase",
    "TrialReadCancelled",
    "TrialRun",
    "TrialSummary",
    "TrialTarget",
    "TurnServer",
    "VariantOpener",
    "VariantReplay",
    "VariantSettings",
    "WorkCounters",
    "WorkTally",
    "WorkloadSource",
    "aa_floor",
    "capture_outcomes",
    "copy_datadir",
    "cost_only",
    "cost_rounds",
    "counter_changes",
    "counter_moved",
    "diff",
    "digest_p95",
    "explain",
    "file_sha256",
    "fingerprint_samples",
    "fingerprint_work",
    "forget_record",
    "history_sessions",
    "last_deadlock",
    "lock_counters",
    "log_sessions",
    "measured_workload",
    "open_log",
    "open_variant",
    "pair_clock",
    "paired_rounds",
    "parse_source",
    "pass_values",
    "per_statement_cost",
    "prepare_trials",
    "read_events",
    "read_record",
    "replay_rounds",
    "replay_session_variable",
    "restore_datadir",
    "round_turns",
    "run_sessions",
    "run_trial",
    "server_turn",
    "settings_refusal",
    "statement_passes",
    "statement_runner",
    "summarize_trial",
    "table_checksums",
    "text_stream",
    "time_ratio",
    "timing_text",
    "with_clock_options",
    "work_columns",
    "work_text",
]
