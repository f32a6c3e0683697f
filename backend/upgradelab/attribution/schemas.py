"""Attribution API shapes: AttributionCreate in, AttributionRead out, typed to the last field (what the
columns of `attribution` hold as JSON: candidates, steps, progress and the result of report.py), so the
UI's types come from the generated client. Shares are fractions of the log-ratio gap with their 95 %
interval; ratios are VerdictRead, as everywhere."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from upgradelab.execution.status import JobStatus
from upgradelab.request_model import RequestModel
from upgradelab.results.stats.verdicts import VerdictRead
from upgradelab.users.tokens import SharedFlag, ShownOnce


class AttributionCreate(RequestModel):
    """Explain the gap between a variant of a finished run and its baseline."""

    run_id: int = Field(ge=1, description="The finished run whose gap is explained.")
    variant: str = Field(min_length=1, max_length=200, description="The variant's name in that run.")
    baseline: str | None = Field(
        None, max_length=200, description="The baseline's name; default the run's first variant."
    )
    target_share: float = Field(
        0.8, gt=0, le=1, description="Share of the log-ratio gap a set must close (0.8 = 80 %)."
    )
    rounds: int | None = Field(None, ge=5, le=100, description="Rounds per step run; default the run's.")
    block: int | None = Field(None, ge=1, le=10_000, description="Iterations per block; default the run's.")
    budget_runs: int = Field(12, ge=1, le=200, description="Step runs at most.")
    budget_minutes: float = Field(
        60.0, gt=0, le=24 * 60, description="Minutes at most (no step starts after)."
    )


class _Read(BaseModel):
    """A shape the API sends: fields with defaults (for rows stored by older versions) are still always
    present in the JSON, so the generated client types them as required."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class GapShare(_Read):
    """A share of the log-ratio gap (a fraction: 1 closes it all) with its 95 % interval."""

    share: float
    low: float
    high: float


class Revert(_Read):
    """What a candidate changes on a copy of the variant to take the baseline's value
    (attribution/candidates.py `reverted`): option-file options removed and added (None: a bare flag),
    SET GLOBAL values set and removed, the redo log's state, instance statements removed and added."""

    remove_options: list[str] = []
    add_options: dict[str, str | None] = {}
    set_global: dict[str, str] = {}
    remove_set_global: list[str] = []
    redo_log: Literal["enabled", "disabled"] | None = None
    remove_instance: list[str] = []
    add_instance: list[str] = []


class CandidateRead(_Read):
    """One testable difference (attribution/candidates.py Candidate): `name` as shown, `kind` (option,
    redo_log, set_global, instance, variable), the recorded variables it covers, both values, `known`
    (a changed default's note), `revert` and `lines` (what reproduces the baseline's behaviour)."""

    name: str
    kind: str = "option"
    baseline: str | None
    variant: str | None
    variables: list[str] = []
    known: str | None = None
    revert: Revert = Revert()
    lines: list[str] = []


class UntestableRead(_Read):
    """A differing setting the search leaves out, and why ("cannot be tested" on the page)."""

    name: str
    reason: str
    baseline: str | None
    variant: str | None


class StepTest(_Read):
    """A tested subset in one step run: the share of the gap it closed with its interval (None: the
    server refused its values, `error` says why), whether it closes the target share, and its verdict
    against the variant (None in attributions stored before, or without an interval)."""

    subset: list[str]
    share: float | None
    low: float | None
    high: float | None
    closes: bool
    verdict: VerdictRead | None = None
    error: str | None = None


class StepRead(_Read):
    """One step run (attribution/runner.py): its number, run, the subsets it tests, the phase ("step":
    ddmin; "beside": the tests beside the found set; None in attributions stored before), `gap` the
    variant against the baseline in that run and `tests` (both None while the run goes on),
    `tests_done` once measured."""

    step: int
    run_id: int
    subsets: list[list[str]]
    phase: str | None = None
    gap: VerdictRead | None = None
    tests: list[StepTest] | None = None
    tests_done: bool = False


class AttributionProgress(_Read):
    """Where it is: the phase (queued, step, beside, done), step runs measured of the budget, minutes
    spent, the step run going on and a sentence (None before it started)."""

    phase: str
    runs_done: int | None = None
    runs_budget: int | None = None
    minutes: float | None = None
    current_run_id: int | None = None
    message: str | None = None


class SubsetTested(_Read):
    """A subset the search measured (pooled over its runs): its share (None: refused, `error` says
    why) and whether it closes the target share."""

    subset: list[str]
    share: float | None = None
    low: float | None = None
    high: float | None = None
    closes: bool
    error: str | None = None


class SetMember(_Read):
    """One setting of the found set: its values, note and lines, its share `alone`, and its own
    contribution [low, high] (the set's share minus the set's without it; None when that was not
    measured)."""

    name: str
    known: str | None
    baseline: str | None
    variant: str | None
    lines: list[str]
    alone: GapShare | None
    contribution: float | None
    low: float | None
    high: float | None


class AlsoSetting(_Read):
    """A setting outside the set that moved the time alone, decided beside the set
    (attribution/search.py `beside`): `alone` the share decided on, `decided_by` "screening" (ddmin's
    own measurement), "confirmation" (fresh runs, `runs` pooled) or "group"; one-sided `p` and the
    `level` it met (Holm); `screening` ddmin's measurement of a confirmed one."""

    name: str
    alone: GapShare
    lines: list[str]
    known: str | None
    decided_by: str = "screening"
    runs: int = 1
    p: float | None = None
    level: float | None = None
    screening: GapShare | None = None


class BesideTest(_Read):
    """A test beside the found set, decided or not (a subset: one setting, or a group); share None
    when the budget ended first."""

    subset: list[str]
    stage: str
    share: float | None
    low: float | None
    high: float | None
    runs: int
    p: float | None
    level: float | None
    decided: bool
    screening: GapShare | None


class RefusedSetting(_Read):
    """A setting the server refused during the search (its words), left out of the subsets."""

    name: str
    reason: str


class AttributionResult(_Read):
    """What it found (attribution/report.py `build`): the outcome ("explained", "unexplained", "out of
    budget", "cannot be tested", "no candidates"), the set and its share, the members, the interaction
    (the set's share minus the members' contributions; `interacts` beyond report.INTERACTION_TOLERANCE),
    the unexplained share, the option lines, `also`/`beside` (the tests beside the set), every tested
    subset, the share of all candidates together, and the runs and minutes spent."""

    outcome: str
    target_share: float
    complete: bool
    runs: int
    minutes: float
    set: list[str]
    set_share: GapShare | None
    all_share: GapShare | None = None
    members: list[SetMember]
    interaction: float | None
    interacts: bool = False
    unexplained: float | None
    lines: list[str]
    also: list[AlsoSetting] = []
    beside: list[BesideTest] = []
    beside_complete: bool = False
    tested: list[SubsetTested] = []
    refused: list[RefusedSetting] = []


class AttributionRead(BaseModel):
    """An attribution: its candidates (and what cannot be tested), each step's run with its verdicts,
    its progress and its result (attribution/report.py: set, members with contribution and interval as
    fractions of the log-ratio gap, interaction, unexplained share, option lines, runs and minutes)."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    run_id: int
    variant: str
    baseline: str
    status: JobStatus
    error: str | None
    group: str
    metric: str
    target_share: float
    rounds: int
    block: int
    budget_runs: int
    budget_minutes: float
    gap: VerdictRead | None = Field(description="The origin run's verdict: variant / baseline.")
    candidates: list[CandidateRead]
    untestable: list[UntestableRead]
    steps: list[StepRead]
    progress: AttributionProgress | None
    result: AttributionResult | None
    share_token: ShownOnce = None
    shared: SharedFlag = False
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
