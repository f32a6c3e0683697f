"""Fix search API shapes: FixSearchCreate in, FixSearchRead out, typed to the last field (the JSON
columns of `fix_search`: candidates, trials, progress, result), so the UI's types come from the
generated client. Ratios are VerdictRead, as everywhere (candidate time / baseline's, / variant's)."""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from upgradelab.execution.status import JobStatus
from upgradelab.fixsearch.candidates import SOURCES, Source
from upgradelab.request_model import RequestModel
from upgradelab.results.stats.verdicts import MIN_ROUNDS, VerdictRead
from upgradelab.users.tokens import SharedFlag, ShownOnce


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
    budget_rounds: int | None = Field(
        None,
        ge=MIN_ROUNDS,
        le=3000,
        description=(
            "Rounds at most, all candidates; default (None) scaled to the candidates once they are built "
            "(each its first look and extensions, and the global twins'), so the minutes end the search."
        ),
    )
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
    scope: Literal["statement", "both", "global"] = Field(
        "both",
        description=(
            "statement: statement-level remedies only; both: and a restoring one that is a setting "
            "re-verified as a global setting on the whole replay; global: settings as global remedies only."
        ),
    )
    sources: list[Source] = Field(
        default_factory=lambda: list(SOURCES),
        min_length=1,
        description=(
            "The candidate sources to try (plan, differs, lever, view, index, statistics; default all): "
            "the others are gathered but neither listed nor measured."
        ),
    )
    side_rounds: int = Field(
        MIN_ROUNDS, ge=MIN_ROUNDS, le=50, description="A global remedy's check: rounds per other fingerprint."
    )
    side_minutes: float = Field(
        10.0, gt=0, le=24 * 60, description="A global remedy's check: minutes at most (none started after)."
    )


class _Read(BaseModel):
    """A shape the API sends: fields with defaults are still always present in the JSON."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class FixCandidateRead(_Read):
    """A remedy to try (fixsearch/candidates.py): name, source (plan, differs, lever, view, index,
    statistics) and note, the settings, scope ("statement": in force for the statement only;
    "global": for the whole server, effects.py), what to apply (the hint, the SET STATEMENT prefix,
    or the option lines; a global one's SET GLOBAL in extra.set_global), the baseline's and the
    variant's values where it sets one back, and a plan candidate's `indexes` (table -> the
    baseline's index, written as an index hint); extra: a subquery strategy's `strategies` and MySQL
    `subquery_hint`, a statistics candidate's `analyze` and `undo` statements and `columns` (table
    -> columns)."""

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


class FixCandidateStored(FixCandidateRead):
    """A candidate as fix_search.candidates stores it (fixsearch/candidates.py Candidate, every field):
    the read shape and a plan candidate's `join_order` (tables in the baseline's order) and MySQL
    `subquery_hint` (strategies.py), which the API does not send; a candidate stored before either
    existed reads them empty."""

    join_order: list[str] = []
    subquery_hint: str = ""


class FixPlanStep(_Read):
    """One table access of a plan (measurement/outcomes.py PlanStep)."""

    table: str
    access_type: str | None = None
    key: str | None = None
    rows: float | None = None


class FixFingerprintEffect(_Read):
    """Another fingerprint of the replay with a global remedy against the variant as it is
    (fixsearch/effects.py): ratio (with / without, its interval) and verdict, results equal,
    rounds, an error when its statements could not be run, and whether it is a side effect
    (decided slower, or its results changed)."""

    fingerprint_id: str
    fingerprint: str
    ratio: VerdictRead | None = None
    verdict: str | None = None
    results_equal: bool
    rounds: int
    error: str | None = None
    side_effect: bool


class FixSideEffects(_Read):
    """A global remedy's check on the whole replay: complete (every other fingerprint checked),
    the sentence said, the side effects (slower or results changed), every fingerprint checked,
    those the budget left, rounds per fingerprint, rounds and minutes spent, the budget's minutes."""

    complete: bool
    said: str
    side_effects: list[FixFingerprintEffect]
    checked: list[FixFingerprintEffect]
    not_checked: list[str]
    rounds_per_fingerprint: int
    rounds: int
    minutes: float
    budget_minutes: float


class FixTrialRead(_Read):
    """A candidate measured (fixsearch/search.py Trial): status (restores, does not restore,
    undecided, refused, not measured: statistics, which need a second instance) and reason, its
    ratio to the baseline and to the variant as it is (the variant's to the baseline in the same
    rounds beside), whether its results equal the baseline's,
    its rounds, the statements as rewritten and the ratios' clock (server, client); its scope
    (statement, global), a global one's side effects on the whole replay (None: not checked), the
    variant's plan of the first statement before and after the remedy (plan_error: EXPLAIN with
    it failed); what to apply (hint, SET STATEMENT prefix, option lines) and a global one's SET GLOBAL."""

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
    scope: str = "statement"
    side_effects: FixSideEffects | None = None
    plan_before: list[FixPlanStep] | None = None
    plan_after: list[FixPlanStep] | None = None
    plan_error: str | None = None
    apply: str | None = None
    set_global: str | None = None
    wrapper: dict[str, str] | None = Field(
        None,
        description=(
            "Like with like (fixsearch/wrappers.py): the no-op wrapper the baseline's and the variant's "
            "statements carried (`baseline`, `variant`: SET STATEMENT prefix or SET_VAR hint) and `note`; "
            "None: the arms ran bare."
        ),
    )
    wrapper_cost: VerdictRead | None = Field(
        None, description="The wrapper's own cost: the variant under it / bare, with its interval."
    )
    wrapper_us: float | None = Field(None, description="The wrapper's own cost per statement, microseconds.")
    plan_identity: str | None = Field(
        None,
        description=(
            "Why a setting that did not restore was measured as a global remedy: with it the variant's "
            "plans are the baseline's, its results and work counters equal (fixsearch/identity.py)."
        ),
    )
    change: dict[str, Any] | None = Field(
        None,
        description=(
            "A schema change measured on the variant's second instance (a rewritten view, an index): "
            "`apply` and `undo` statements, an index's `size_bytes`."
        ),
    )


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
    remedy that restores (None: none; under scope "both" the statement-level one), the first
    global remedy that restores (its side effects checked), candidates tried, those not tried,
    rounds and minutes; out of budget, the rounds and minutes more that would have tried the rest."""

    outcome: str
    remedy: str | None
    global_remedy: str | None = None
    tried: int
    not_tried: list[str]
    rounds: int
    minutes: float
    more_rounds: int = Field(0, description="Out of budget: rounds more that would have tried the rest.")
    timing_cpu: str | None = Field(
        None, description="How the timing was placed on the CPUs (execution/timing_cpu.py), as in a replay."
    )
    more_minutes: float = Field(
        0.0, description="Out of budget: minutes more, at the search's pace, that would have tried the rest."
    )
    said: str | None = Field(None, description="The outcome in a sentence (out of budget: what more).")
    unused: list[str] = Field(
        [],
        description=(
            "Optimizer variables the variant's own `--verbose --help` calls unused: never candidates "
            "(targets/option_names.py unused_variables)."
        ),
    )


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
    budget_scaled: bool
    budget_minutes: float
    try_all: bool
    tolerance: float
    scope: str
    sources: list[str]
    side_rounds: int
    side_minutes: float
    statement_timeout_s: float
    candidates: list[FixCandidateRead]
    tried: list[FixTrialRead]
    progress: FixSearchProgress | None
    result: FixSearchResult | None
    share_token: ShownOnce = None
    shared: SharedFlag = False
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
