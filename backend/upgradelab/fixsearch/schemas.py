"""Fix search API shapes: FixSearchCreate in, FixSearchRead out, typed to the last field (the JSON
columns of `fix_search`: candidates, trials, progress, result), so the UI's types come from the
generated client. Ratios are VerdictRead, as everywhere (candidate time / baseline's, / variant's)."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from upgradelab.execution.status import JobStatus
from upgradelab.request_model import RequestModel
from upgradelab.results.stats.verdicts import MIN_ROUNDS, VerdictRead


class FixSearchCreate(RequestModel):
    """Find a statement-level remedy for fingerprint `fingerprint_id` of replay `replay_id` on its
    variant `variant` (against the replay's baseline, its first variant)."""

    replay_id: int = Field(ge=1, description="The finished replay.")
    fingerprint_id: str = Field(min_length=1, max_length=64, description="The fingerprint's id in it.")
    variant: str = Field(min_length=1, max_length=200, description="The replay variant it is slower on.")
    rounds: int = Field(
        MIN_ROUNDS, ge=MIN_ROUNDS, le=100, description="Rounds per candidate (a verdict needs 5)."
    )
    passes: int | None = Field(None, ge=1, le=20, description="Passes per round; default the replay's.")
    budget_rounds: int = Field(60, ge=MIN_ROUNDS, le=3000, description="Rounds at most, all candidates.")
    budget_minutes: float = Field(30.0, gt=0, le=24 * 60, description="Minutes at most (none started after).")
    tolerance: float = Field(
        0.10,
        ge=0.01,
        le=1.0,
        description="A remedy restores when decided at most this much slower (0.10 = 10 %).",
    )
    try_all: bool = Field(
        False, description="Measure every candidate; default stop at the first that restores."
    )


class _Read(BaseModel):
    """A shape the API sends: fields with defaults are still always present in the JSON."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class FixCandidateRead(_Read):
    """A remedy to try (fixsearch/candidates.py): name, source (plan, differs, lever) and note,
    the settings in force for the statement only, scope ("statement"), what to apply (the hint or
    the SET STATEMENT prefix), the baseline's and the variant's values where it sets one back,
    and a plan candidate's `indexes` (table -> the baseline's index, written as an index hint)."""

    name: str
    source: str
    note: str
    settings: dict[str, str]
    apply: str
    scope: str = "statement"
    baseline: str | None = None
    variant: str | None = None
    extra: dict[str, Any] = {}
    indexes: dict[str, str] = {}


class FixTrialRead(_Read):
    """A candidate measured (fixsearch/search.py Trial): status (restores, does not restore,
    undecided, refused) and reason, its ratio to the baseline and to the variant as it is (the
    variant's to the baseline in the same rounds beside), whether its results equal the baseline's,
    its rounds, the statements as rewritten and the ratios' clock (server, client)."""

    name: str
    status: str
    reason: str
    ratio_to_baseline: VerdictRead | None = None
    ratio_to_variant: VerdictRead | None = None
    variant_to_baseline: VerdictRead | None = None
    results_equal: bool | None = None
    rounds: int = 0
    statements: list[str] = []
    clock: str | None = None


class FixSearchProgress(_Read):
    """Where it is: phase (queued, starting the servers, measuring, done), candidates tried, rounds
    spent, minutes, a sentence."""

    phase: str
    tried: int | None = None
    rounds_done: int | None = None
    minutes: float | None = None
    message: str | None = None


class FixSearchResult(_Read):
    """How it ended: outcome ("restored", "no remedy found", "out of budget", "cancelled"), the
    remedy that restores (None: none), candidates tried, those not tried, rounds and minutes."""

    outcome: str
    remedy: str | None
    tried: int
    not_tried: list[str]
    rounds: int
    minutes: float


class FixSearchRead(BaseModel):
    """A fix search: what it fixes, its budget, its candidates in the order tried, every trial, its
    progress and result."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    replay_id: int
    fingerprint_id: str
    fingerprint: str
    variant: str
    baseline: str
    status: JobStatus
    error: str | None
    rounds: int
    passes: int
    budget_rounds: int
    budget_minutes: float
    try_all: bool
    tolerance: float
    statement_timeout_s: float
    candidates: list[FixCandidateRead]
    tried: list[FixTrialRead]
    progress: FixSearchProgress | None
    result: FixSearchResult | None
    share_token: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
