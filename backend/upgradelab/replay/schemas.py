"""API shapes of replay runs: the request (ReplayCreate, with the planned rounds' defaults) and the
run as read (ReplayRead, its variants, skipped statements and progress). Its report document is
replay/report.py, the groups table replay/groups.py."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, ValidationInfo, field_validator

from upgradelab.execution.schedule import RunSchedule, ScheduleKind
from upgradelab.execution.status import JobStatus
from upgradelab.experiments.schemas import VariantSpec
from upgradelab.measurement import DEFAULT_SAMPLE, ReadShape, ReplayVariantSpec, SourceFormat
from upgradelab.replay.defaults import DEFAULT_PASSES as DEFAULT_PASSES
from upgradelab.replay.defaults import DEFAULT_ROUNDS as DEFAULT_ROUNDS
from upgradelab.replay.report import ReplayReport
from upgradelab.request_model import RequestModel
from upgradelab.targets.statement_timeout import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, MIN_TIMEOUT_S

MAX_QUERIES_CHARS = 50_000_000
# The extension (engine.py step 4): without max_rounds, up to EXTENSION_FACTOR x the planned rounds
# (60 at the default 20: what the A/A scatter of bench/replay_resolution.py needs for a "same").
EXTENSION_FACTOR = 3
MAX_ROUNDS = 3000
MAX_SHARDS = 64


def variant_name(target: str, preset: str) -> str:
    """A replay variant's default name: TARGET, or TARGET:PRESET for another preset than default
    (the string form's own text)."""
    return target if preset.strip() in ("", "default") else f"{target}:{preset.strip()}"


def _spec_of_text(value: Any) -> Any:
    """TARGET[:PRESET] -> {"target", "preset", "name": the text}; anything else as given."""
    if not isinstance(value, str):
        return value
    target, _, preset = value.partition(":")
    return {"target": target, "preset": preset or "default", "name": value}


# A replay variant: the experiment's variant spec (target, preset, name, startup options, SET GLOBAL,
# SET SESSION, instance statements), or its short form TARGET[:PRESET] (a string).
ReplayVariantIn = Annotated[
    VariantSpec, BeforeValidator(_spec_of_text, json_schema_input_type=str | VariantSpec)
]


class ReplayCreate(RequestModel):
    """A replay: `queries` (the text of a plain SQL file, slow log or general log; `format` detected
    unless given) replayed on dataset `dataset` on every variant (the first is the baseline): each
    the experiment's variant spec (experiments/schemas.py VariantSpec: target, preset, name, startup
    `options`, `set_global`, `set_session`, `instance` statements; name default TARGET[:PRESET]) or
    the string TARGET[:PRESET], validated and allow-listed as a run's (replay/service.py) in
    `rounds` interleaved rounds (each round times every sampled statement `passes` times
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
    extension); default 3 x the rounds (60 at the default 20).
    `shards`: spread the fingerprints over this many hosts of the replay's worker pool, each host
    running every variant for its share, so every comparison stays on one machine
    (replay/sharding.py), or "auto": as many as the pool has live workers when it starts; 1 (the
    default): on one host, as before. Fewer live workers than asked: that many; one: not sharded."""

    name: str | None = Field(None, max_length=200)
    dataset: str = Field(min_length=1, max_length=64)
    queries: str = Field(min_length=1, max_length=MAX_QUERIES_CHARS)
    format: SourceFormat | None = None
    variants: list[ReplayVariantIn] = Field(min_length=1, max_length=8)
    rounds: int | None = Field(None, ge=1, le=1000)
    # deprecated: the older name of `rounds`, accepted on input only (a replay read has `rounds`)
    repeats: int | None = Field(None, ge=1, le=1000, json_schema_extra={"deprecated": True})
    passes: int = Field(DEFAULT_PASSES, ge=1, le=100)
    sample: int = Field(DEFAULT_SAMPLE, ge=1, le=1000)
    allow_writes: bool = False
    statement_timeout_s: float = Field(DEFAULT_TIMEOUT_S, ge=MIN_TIMEOUT_S, le=MAX_TIMEOUT_S)
    aa_control: bool = False
    max_rounds: int | None = Field(None, ge=1, le=MAX_ROUNDS)
    shards: Annotated[int, Field(ge=1, le=MAX_SHARDS)] | Literal["auto"] = 1

    @property
    def shard_count(self) -> int:
        """`shards` as stored (ReplayRun.shards): 0 for "auto"."""
        return 0 if self.shards == "auto" else self.shards

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


class ReplayStatement(ReadShape):
    """A statement of the source (sources.py SourceStatement): its text, default database (None: the
    dataset's), fingerprint and its id, first keyword and 0-based position in the source."""

    sql: str
    database: str | None
    fingerprint: str
    fingerprint_id: str
    kind: str
    position: int


class ReplayProgress(ReadShape):
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


class ShardProgress(BaseModel):
    """A sharded replay's shard's progress (models.ReplayShard.progress, sharding.shard_progress): its
    last phase ("mariadb-11.8: round 2 of 5"), the rounds it finished and the rounds it plans (None
    before its first round)."""

    phase: str = "queued"
    round: int = 0
    rounds: int | None = None


class ReplaySchedule(BaseModel):
    """A replay's stored `schedule` (models.py): from its creation the extension's budget
    `max_rounds` alone (service.create; None in replays made before the extension), then once it
    starts the rounds planned so far beside it (execution/schedule.py Schedule.as_json: kind, seed,
    rounds, block, order; runner.py), longer after each extension step."""

    kind: ScheduleKind | None = None
    seed: int | None = None
    rounds: int | None = None
    block: int | None = None
    order: list[list[int]] | None = None
    max_rounds: int | None = None

    def planned(self) -> RunSchedule | None:
        """The rounds' schedule (RunSchedule) once the replay started; None before (the budget alone)."""
        if self.order is None:
            return None
        return RunSchedule.model_validate(self.model_dump(exclude={"max_rounds"}))


class ReplayRead(ReadShape):
    """A replay run; `report` once it succeeded (or, partial, once cancelled after measuring), and
    only from GET /api/replays/{id}. `statement_timeout_s`: every statement's bound. `rounds`: the
    number of planned rounds; `max_rounds`: the extension's budget (None: no
    extension, replays made before it); `schedule`: each round's variant order (variant indexes)
    once the replay started, the extension's rounds included; `statements`: how many were sampled;
    `skipped_writes`: the statements left out of a read-only replay; `progress`: the current step
    while it runs (a sharded replay's: the rounds of every shard summed); `shards`: as asked
    (ReplayCreate.shards). `dataset_sha256` and `dataset_deleted_at`: the dump it ran on, and when that
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
    shards: int | Literal["auto"] = 1
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
