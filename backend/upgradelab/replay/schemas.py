"""API shapes of replay runs."""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from upgradelab.replay.sources import DEFAULT_SAMPLE

MAX_QUERIES_CHARS = 50_000_000
DEFAULT_ROUNDS = 10  # twice results/verdicts.py's MIN_ROUNDS: room for a verdict at a 10 % threshold
# Passes per block: on the lab machine an A/A replay's median smallest detectable change was 67 % with
# one pass and 35 % with five (p90: 202 % -> 56 %), for 1.7x the wall clock.
DEFAULT_PASSES = 5


class ReplayCreate(BaseModel):
    """A replay: `queries` (the text of a plain SQL file, slow log or general log; `format` detected
    unless given) replayed on dataset `dataset` on every variant (TARGET[:PRESET], the first is the
    baseline) in `rounds` interleaved rounds (each round every variant runs `passes` passes over the
    sampled statements, the round's value being their median; a time verdict needs at least 5
    rounds), at most `sample` statements per fingerprint; writes only
    with allow_writes, and then only on disposable targets. `repeats` is the older name of `rounds`,
    used when `rounds` is not given."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, max_length=200)
    dataset: str = Field(min_length=1, max_length=64)
    queries: str = Field(min_length=1, max_length=MAX_QUERIES_CHARS)
    format: Literal["sql", "slow", "general"] | None = None
    variants: list[str] = Field(min_length=1, max_length=8)
    rounds: int | None = Field(None, ge=1, le=1000)
    repeats: int | None = Field(None, ge=1, le=1000)
    passes: int = Field(DEFAULT_PASSES, ge=1, le=100)
    sample: int = Field(DEFAULT_SAMPLE, ge=1, le=1000)
    allow_writes: bool = False

    @property
    def round_count(self) -> int:
        """`rounds`, else `repeats`, else DEFAULT_ROUNDS."""
        return self.rounds or self.repeats or DEFAULT_ROUNDS


class ReplayRead(BaseModel):
    """A replay run; `report` (see compare.report_document) once it succeeded, and only from
    GET /api/replays/{id}. `repeats` and `rounds` are both the number of rounds; `schedule`: each
    round's variant order (runs/plan.py Schedule.as_json, variant indexes) once the replay started."""

    id: int
    name: str
    dataset: str | None
    status: str
    source_format: str
    variants: list[dict[str, Any]]
    repeats: int
    rounds: int | None = None
    passes: int | None = None
    schedule: dict[str, Any] | None = None
    sample: int
    allow_writes: bool
    statements: int
    skipped_writes: list[dict[str, Any]]
    progress: dict[str, Any] | None
    error: str | None
    created_at: datetime
    ended_at: datetime | None
    report: dict[str, Any] | None = None
