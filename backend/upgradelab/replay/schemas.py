"""API shapes of replay runs: the request, the run as read, and its report (compare.py builds it)."""

import math
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, computed_field, field_validator

from upgradelab.datasets.loader import LoadResult, TableStats
from upgradelab.execution.schedule import RunSchedule
from upgradelab.execution.status import JobStatus
from upgradelab.replay.outcomes import Outcome
from upgradelab.replay.sources import DEFAULT_SAMPLE, SourceFormat
from upgradelab.request_model import RequestModel
from upgradelab.results.stats.verdicts import VerdictRead
from upgradelab.targets.statement_timeout import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, MIN_TIMEOUT_S

MAX_QUERIES_CHARS = 50_000_000
# Rounds and passes per round: many short rounds over few long ones. The interval is a 20 % trimmed
# mean over the rounds (results/stats/paired.py), so 10 rounds keep 6 values and Student's t on 4
# degrees of freedom (2.78), 20 keep 12 on 10 (2.23); and with the variants taking turns pass by pass
# (engine.py "pass") a pass more in a round adds little that another round does not. On the lab
# machine (bench/replay_resolution.py, A/A, by pass) 20 x 2 gave a median smallest detectable change
# of 8.7 % in 136 s against 11.9 % in 173 s for 10 x 5 (loaded host); 8.5 % in 131 s on a quiet one.
DEFAULT_ROUNDS = 20
DEFAULT_PASSES = 2
# The extension (engine.py step 4): without max_rounds, up to EXTENSION_FACTOR x the planned rounds
# (60 at the default 20: what the A/A scatter of bench/replay_resolution.py needs for a "same").
EXTENSION_FACTOR = 3
MAX_ROUNDS = 3000

Group = Literal[
    "breaks",
    "slower, plan changed",
    "slower (timed out)",
    "timed out",
    "slower",
    "plan changed",
    "plan changes",  # reports stored before per-variant groups
    "faster, plan changed",
    "faster",
    "same",
    "undecided",
    "refused",
]
# In the order the report lists them; "refused" (writes a read-only replay did not run) comes apart,
# last: not a finding about the variants. compare.py gives the order a fingerprint falls into them.
GROUPS: tuple[Group, ...] = (
    "breaks",
    "slower, plan changed",
    "slower (timed out)",
    "timed out",
    "slower",
    "plan changed",
    "faster, plan changed",
    "faster",
    "same",
    "undecided",
    "refused",
)
ErrorChange = Literal["new", "resolved", "changed", "same"]


class _Read(BaseModel):
    """A shape the API sends: fields with defaults (for rows stored by older versions) are still
    always present in the JSON, so the generated client types them as required."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class ReplayCreate(RequestModel):
    """A replay: `queries` (the text of a plain SQL file, slow log or general log; `format` detected
    unless given) replayed on dataset `dataset` on every variant (TARGET[:PRESET], the first is the
    baseline) in `rounds` interleaved rounds (each round times every sampled statement `passes` times
    on every variant, the variants taking turns pass by pass, the round's value being the median of
    its passes; a time verdict needs at least 5 rounds), at most `sample` statements per
    fingerprint; writes only with allow_writes, and then only on disposable targets. `repeats`
    (deprecated) is the older name of `rounds`, used when `rounds` is not given. `statement_timeout_s`: every
    statement's bound in seconds (0.1 to 3600, default 30); a statement past it is ended and
    reported "timed out after N s".
    `aa_control`: add a second instance of the baseline, named "<baseline> (A/A)" (the last variant):
    its interval against the baseline is each fingerprint's noise floor, and a slower or faster
    verdict needs its interval clear of that floor (results/stats/verdicts.py).
    `max_rounds`: the extension's budget: after the planned rounds, the fingerprints still undecided
    (neither same, slower nor faster) are timed again, 5 rounds at a time, until they decide or
    reach max_rounds rounds in all (replay/extension.py); at least the planned rounds (equal: no
    extension); default 3 x the rounds (60 at the default 20)."""

    name: str | None = Field(None, max_length=200)
    dataset: str = Field(min_length=1, max_length=64)
    queries: str = Field(min_length=1, max_length=MAX_QUERIES_CHARS)
    format: SourceFormat | None = None
    variants: list[str] = Field(min_length=1, max_length=8)
    rounds: int | None = Field(None, ge=1, le=1000)
    # deprecated: the older name of `rounds`, accepted on input only (a replay read has `rounds`)
    repeats: int | None = Field(None, ge=1, le=1000, json_schema_extra={"deprecated": True})
    passes: int = Field(DEFAULT_PASSES, ge=1, le=100)
    sample: int = Field(DEFAULT_SAMPLE, ge=1, le=1000)
    allow_writes: bool = False
    statement_timeout_s: float = Field(DEFAULT_TIMEOUT_S, ge=MIN_TIMEOUT_S, le=MAX_TIMEOUT_S)
    aa_control: bool = False
    max_rounds: int | None = Field(None, ge=1, le=MAX_ROUNDS)

    @field_validator("max_rounds")
    @classmethod
    def _at_least_the_rounds(cls, value: int | None, info: ValidationInfo) -> int | None:
        planned = info.data.get("rounds") or info.data.get("repeats") or DEFAULT_ROUNDS
        if value is not None and value < planned:
            raise ValueError(
                f"max_rounds ({value}) is below the planned rounds ({planned}); equal to rounds: no extension"
            )
        return value

    @property
    def round_count(self) -> int:
        """`rounds`, else `repeats`, else DEFAULT_ROUNDS."""
        return self.rounds or self.repeats or DEFAULT_ROUNDS

    @property
    def max_round_count(self) -> int:
        """`max_rounds`, else EXTENSION_FACTOR x round_count (at most MAX_ROUNDS)."""
        return self.max_rounds or min(MAX_ROUNDS, EXTENSION_FACTOR * self.round_count)


class ReplayVariantSpec(_Read):
    """One variant as stored (service.py): its name (TARGET[:PRESET]), target, preset (presets
    joined with '+') and the option-file lines its server starts with; `aa_control`: it is the A/A
    control (a second instance of the baseline)."""

    name: str
    target: str
    preset: str
    options: list[str]
    aa_control: bool = False


class ReplayStatement(_Read):
    """A statement of the source (sources.py SourceStatement): its text, default database (None: the
    dataset's), fingerprint and its id, first keyword and 0-based position in the source."""

    sql: str
    database: str | None
    fingerprint: str
    fingerprint_id: str
    kind: str
    position: int


class ReplayProgress(_Read):
    """The current step (runner.py): the variant, its 1-based `index` of `of`, the phase ("starting
    the server", "loading the dataset", "round 2 of 10", ...) and while loading the dump
    (workloads/base.DatasetProgress): rows seen, `bytes` of the dump fed of `rows_total` bytes in
    all (the loader's naming), elapsed and estimated seconds."""

    variant: str
    index: int
    of: int
    phase: str
    rows: int | None = None
    rows_total: int | None = None
    bytes: int | None = None
    elapsed_s: float | None = None
    estimate_s: float | None = None


class Cause(_Read):
    """A known cause of a break (causes.py KNOWN_CAUSES): its id, title and the MySQL Shell upgrade
    checker's check of it (None: it has none)."""

    id: str
    title: str
    check: str | None


class StatementDiff(_Read):
    """One statement on one variant against the baseline (compare.py's module docstring): which of
    error code, warning codes, result (rows or the order-insensitive checksum), ordering only (with
    `unordered_query` when it has no ORDER BY) and plan differ, whether it was refused as a write
    (`refused`) or timed out (`timed_out`) on one of the two only; `breaks` = error, result, or an
    order the query never asked for (a refusal or a timeout is not a break). `error_change`: "new"
    (errors on the variant only), "resolved" (on the baseline only), "changed" (another code),
    "same" (the same code on both), None (neither errored). `plan_compared`: False across flavors
    (MySQL's and MariaDB's plans differ in form; both are in `outcomes`, `plan` is then False).
    `cause`: the known cause of the break, if one matches."""

    variant: str
    error: bool
    refused: bool = False
    timed_out: bool = False
    warnings: bool
    result: bool
    ordering_only: bool
    unordered_query: bool
    plan: bool
    error_change: ErrorChange | None = None
    plan_compared: bool = True
    cause: Cause | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def breaks(self) -> bool:
        return self.error or self.result or (self.ordering_only and self.unordered_query)


class StatementResult(_Read):
    """One sampled statement: its text and default database, its outcome per variant name (error,
    warnings, rows, checksums, plan, kind; outcomes.py; the baseline first), its diffs, one per
    non-baseline variant, and per variant how many of its timed runs timed out."""

    sql: str
    database: str | None
    outcomes: dict[str, Outcome]
    diffs: list[StatementDiff]
    timed_out_runs: dict[str, int] = {}


class VariantFinding(_Read):
    """A fingerprint on one variant against the baseline: its group there (first match of breaks,
    slower (timed out), timed out, refused, slower, plan changed [with slower or faster: "slower,
    plan changed", "faster, plan changed"], faster, same, undecided), the causes of its breaks, and
    for its time verdict the p-value of the paired rounds and its Benjamini-Hochberg adjusted value
    across the replay's comparisons (None: no test). A regression or improvement whose adjusted
    value exceeds the replay's `fdr_q` is read "inconclusive"."""

    group: Group
    causes: list[Cause] = []
    p_value: float | None = None
    q_value: float | None = None


class FingerprintResult(_Read):
    """A fingerprint: its group (first match of breaks, timed out, refused, plan changes, slower,
    faster, same), median seconds per variant (median of its round values; None: no round),
    `ratios` per non-baseline variant that has an interval (results/stats/verdicts.py VerdictRead, from
    round values paired by round), and its sampled statements; `variants`: its finding per
    non-baseline variant; `floor`: the A/A control's interval against the baseline (its noise floor;
    None without a control); `rounds`: the rounds its statements were timed (more than the replay's
    planned rounds when the extension timed it again; None in reports made before)."""

    fingerprint_id: str
    fingerprint: str
    group: Group
    median_s: dict[str, float | None]
    ratios: dict[str, VerdictRead] = {}
    statements: list[StatementResult]
    variants: dict[str, VariantFinding] = {}
    floor: VerdictRead | None = None
    rounds: int | None = None

    @field_validator("ratios", mode="before")
    @classmethod
    def _stored_before(cls, ratios: object) -> object:
        # Reports stored before one verdict shape: a variant without an interval was all None but
        # `rounds` (now: no ratio), and reports from before rounds hold ratio, low, high and verdict
        # only, from one block's timings (now: what the within-block bootstrap says, rounds 1).
        if not isinstance(ratios, dict):
            return ratios
        out = {}
        for name, value in ratios.items():
            if isinstance(value, dict) and value.get("ratio") is None:
                continue
            if isinstance(value, dict) and value.get("method") is None:
                value = {
                    "rounds": 1,
                    "method": "within-block bootstrap",
                    "mde": math.sqrt(value["high"] / value["low"]) - 1,
                    "reason": "stored before replays ran in rounds: one block's timings",
                    **{k: v for k, v in value.items() if v is not None},
                }
                value.setdefault("verdict", "insufficient rounds")
            out[name] = value
        return out


class VariantReport(_Read):
    """A variant's server as replayed: SELECT VERSION(), the dump load (None: the kept datadir
    already held the dataset) and its tables after the load; its flavor, when ANALYZE TABLE
    computed the statistics of its `analyzed` tables (UTC; None in reports from before), and the
    clock that timed it ("server": performance_schema TIMER_WAIT, "client")."""

    name: str
    version: str
    loaded: LoadResult | None
    tables: list[TableStats]
    flavor: str | None = None
    statistics_at: datetime | None = None
    analyzed: int | None = None
    clock: str | None = None


class VariantSummary(_Read):
    """One variant against the baseline, counted in fingerprints: breaks (of them with a new error,
    with a result change), slower (of them with a plan change, and timed out on the variant only),
    faster (of them with a plan change), same, undecided (with the median smallest detectable change
    of their intervals, a fraction), plan changes, refused writes and timeouts (a statement timed out
    on either)."""

    variant: str
    version: str
    breaks: int
    new_errors: int
    resolved_errors: int
    result_changes: int
    slower: int
    slower_plan_changed: int
    slower_timed_out: int
    faster: int
    faster_plan_changed: int = 0  # 0 in reports stored before the group
    same: int
    undecided: int
    undecided_median_mde: float | None
    plan_changes: int
    refused: int
    timeouts: int


class ReplayReport(_Read):
    """The stored report (compare.report_document): the baseline's name, the variants, how many
    fingerprints fell in each group, `exit_bits` (`upgradelab replay`'s exit status: 1 breaks, 2
    regressions, 4 plan changes), statements replayed, rounds and passes per block, the schedule
    (None before rounds), the verdict threshold (a fraction) and every fingerprint in source order.
    Seconds are wall-clock around execute + fetch. `partial`: the replay was cancelled, and this is
    what it measured (the statements captured on every variant, the rounds every variant completed);
    `statement_timeout_s`: the bound every statement ran under (None in reports made before it).
    `summary`: one VariantSummary per non-baseline variant (read first); `aa_control`: the A/A
    control variant's name (None: no control; each fingerprint's `floor` is its interval); `clock`:
    the clock every variant was timed by; `fdr`: how false discoveries were controlled (a
    sentence), at `fdr_q`. `rounds` is the most any fingerprint got; `planned_rounds`: the rounds
    every statement got; `max_rounds`: the extension's budget (None: no extension) and `extension`
    how it went and what it means for the statistics (a sentence; None without an extension)."""

    baseline: str
    partial: bool = False
    statement_timeout_s: float | None = None
    variants: list[VariantReport]
    groups: dict[Group, int]
    exit_bits: int
    statements: int
    rounds: int | None = None
    passes: int | None = None
    schedule: RunSchedule | None = None
    threshold: float | None = None
    fingerprints: list[FingerprintResult]
    summary: list[VariantSummary] = []
    aa_control: str | None = None
    clock: str | None = None
    fdr: str | None = None
    fdr_q: float | None = None
    planned_rounds: int | None = None
    max_rounds: int | None = None
    extension: str | None = None


class ReplayRead(_Read):
    """A replay run; `report` once it succeeded (or, partial, once cancelled after measuring), and
    only from GET /api/replays/{id}. `statement_timeout_s`: every statement's bound. `rounds`: the
    number of planned rounds; `max_rounds`: the extension's budget (None: no
    extension, replays made before it); `schedule`: each round's variant order (variant indexes)
    once the replay started, the extension's rounds included; `statements`: how many were sampled;
    `skipped_writes`: the statements left out of a read-only replay; `progress`: the current step
    while it runs. `dataset_sha256` and `dataset_deleted_at`: the dump it ran on, and when that
    dataset was deleted (None: live); the report is kept either way, a new replay needs the dump
    uploaded again (same dump: same sha256)."""

    id: int
    name: str
    dataset: str | None
    dataset_sha256: str | None = None
    dataset_deleted_at: datetime | None = None
    status: JobStatus
    source_format: SourceFormat
    variants: list[ReplayVariantSpec]
    rounds: int
    passes: int | None = None
    max_rounds: int | None = None
    schedule: RunSchedule | None = None
    sample: int
    allow_writes: bool
    statement_timeout_s: float = DEFAULT_TIMEOUT_S
    statements: int
    skipped_writes: list[ReplayStatement]
    progress: ReplayProgress | None
    error: str | None
    created_at: datetime
    ended_at: datetime | None
    report: ReplayReport | None = None
