"""Assessment API shapes: AssessmentCreate in, AssessmentRead out; the stored children
(AssessmentChildren: the capture, per version its check, replay and fix searches) and progress."""

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, model_validator

from upgradelab.assessment.report import AssessmentReport
from upgradelab.execution.status import JobStatus
from upgradelab.measurement import ReadShape
from upgradelab.request_model import RequestModel
from upgradelab.users.tokens import SharedFlag, ShownOnce

MAX_VERSIONS = 4
MAX_BUDGET_MIN = 24 * 60
DEFAULT_BUDGET_MIN = 60.0
MAX_QUERIES_CHARS = 50_000_000  # as a replay's query file (replay/schemas.py)
MAX_MY_CNF_CHARS = 1_000_000  # as an uploaded option file (captures/schemas.py)
FIX_TOLERANCE = 0.10  # the fix search's own default (fixsearch/schemas.py FixSearchCreate.tolerance)


class AssessmentCreate(RequestModel):
    """An assessment of an upgrade: the team's server (`target`, an existing target read with a
    read-only account; or `capture_id`, a succeeded capture; or `my_cnf`, the text of its option
    file, when there is no server to read: exactly one of them) checked against each of `versions`
    (lab targets of the new versions, in the order reported) and its workload replayed on `baseline`
    (the lab target running the team's current version, the replay's first variant, with the team's
    settings) and each new version, with an A/A control, on `dataset` with `queries` (a query log's
    text; default the capture's workload); a fix search for each slower fingerprint (a remedy
    restores within `fix_tolerance` of the old version's time); everything
    within `budget_min` minutes of wall clock (the steps not started by then are reported not
    evaluated, "out of budget")."""

    target: str | None = Field(None, min_length=1, max_length=64, description="The team's server (a target).")
    capture_id: int | None = Field(None, ge=1, description="A succeeded capture of the team's server.")
    my_cnf: str | None = Field(
        None, min_length=1, max_length=MAX_MY_CNF_CHARS, description="The team's option file's text."
    )
    versions: list[str] = Field(
        min_length=1, max_length=MAX_VERSIONS, description="Lab targets of the new versions."
    )
    baseline: str | None = Field(
        None,
        min_length=1,
        max_length=64,
        description="Lab target of the team's current version (the replay's baseline).",
    )
    dataset: str | None = Field(
        None, min_length=1, max_length=64, description="The dataset the replay loads."
    )
    queries: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_QUERIES_CHARS,
        description="A query log's text (default: the capture's).",
    )
    budget_min: float = Field(
        DEFAULT_BUDGET_MIN, gt=0, le=MAX_BUDGET_MIN, description="Total budget in minutes."
    )
    fix_tolerance: float = Field(
        FIX_TOLERANCE,
        ge=0.01,
        le=1.0,
        description=(
            "A fix search's remedy restores when decided at most this much slower than the old "
            "version (0.10 = 10 %, the fix search's default; at most half the replay's gap)."
        ),
    )

    @model_validator(mode="after")
    def _one_source(self) -> "AssessmentCreate":
        given = [name for name in ("target", "capture_id", "my_cnf") if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of target, capture_id and my_cnf (the team's server, a capture of "
                f"it, or its option file); given: {', '.join(given) or 'none'}"
            )
        if len(set(self.versions)) != len(self.versions):
            raise ValueError("versions: each new version once")
        return self


class VersionChildren(ReadShape):
    """The children of one new version: its check, its replay (baseline, new version, A/A control)
    and the fix searches of its slower fingerprints; None: not made (yet)."""

    version: str
    check_id: int | None = None
    replay_id: int | None = None
    fix_search_ids: list[int] = Field(default_factory=list)
    why_no_check: str = "not started"
    why_no_replay: str = "not started"


class StoppedChild(ReadShape):
    """A child the assessment's budget ended (through the child's own cancel, so its own status
    reads `cancelled`): its `kind` (its kind's API name: capture, check, replay, fix_search) and `id`."""

    kind: str
    id: int


class AssessmentChildren(ReadShape):
    """Every child job of an assessment, by id (each one shareable on its own page);
    `stopped_by_budget`: the child the budget ended (None: none), which the report says "out of
    budget", not "cancelled"."""

    capture_id: int | None = None
    why_no_capture: str = "not started"
    versions: list[VersionChildren] = Field(default_factory=list)
    stopped_by_budget: StoppedChild | None = None


class AssessmentProgress(ReadShape):
    """Where it is: the `step` ("capture", "check mariadb-11.8", "replay mariadb-11.8", "fix search
    ..."), `done` steps of `steps` planned, `minutes` spent of the budget."""

    step: str
    done: int = 0
    steps: int = 0
    minutes: float = 0.0


class AssessmentRead(BaseModel):
    """An assessment: its request, its children, status, progress and (once ended) its report."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    target: str | None
    versions: list[str]
    baseline: str | None
    dataset: str | None
    budget_min: float
    fix_tolerance: float = FIX_TOLERANCE
    status: JobStatus
    error: str | None
    children: AssessmentChildren
    progress: AssessmentProgress | None
    report: AssessmentReport | None
    share_token: ShownOnce = None
    shared: SharedFlag = False
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
