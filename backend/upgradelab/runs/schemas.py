"""Run API shapes."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from upgradelab.execution.schedule import RunSchedule, ScheduleKind
from upgradelab.execution.status import JobStatus
from upgradelab.request_model import RequestModel

# the run's stored shapes (runs/models.py, typed there through db.ModelJSON), read in the API as stored
from upgradelab.runs.models import RunHostContext, VariantStatus
from upgradelab.runs.models import RunProgress as RunProgress
from upgradelab.workloads.base import Policy


class VariantState(BaseModel):
    """A variant's own status within the run (run_variant): pending -> running -> succeeded | failed."""

    variant_index: int
    name: str
    target: str
    status: VariantStatus
    error: str | None = None
    is_aa_control: bool = False


class VariantContext(VariantState):
    """A variant's state and what produced its numbers, captured once when its instance started:
    version (SELECT VERSION()), version_comment, provisioner kind, image_or_binary (docker image and
    id, or the server binary with its chroot), option_file (the effective text: my.cnf, or the docker
    flags one a line), variables (SHOW GLOBAL VARIABLES as {name: value}); None before it started."""

    provisioner: str | None = None
    image_or_binary: str | None = None
    version: str | None = None
    version_comment: str | None = None
    option_file: str | None = None
    variables: dict[str, str] | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None


class RunContext(BaseModel):
    """GET /api/runs/{id}/context: the schedule and the host context, both None before the run
    started and for runs made before issue 12; variants: one per variant, in experiment order."""

    run_id: int
    schedule: RunSchedule | None
    context: RunHostContext | None
    variants: list[VariantContext]


class RunRead(BaseModel):
    """A run with its progress: iterations_done counts stored iterations over all variants."""

    id: int
    experiment_id: int
    name: str
    notes: str | None = None
    targets: list[str] = []
    workload: str
    status: JobStatus
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    iterations: int
    variants: list[str]
    current_variant: int | None
    iterations_done: int
    iterations_total: int
    # issue 3 (templates): cold/warm policy and dataset preparation progress (None when not preparing)
    policy: Policy = "warm"
    progress: RunProgress | None = None
    # issue 12: the schedule as planned (None before the run started), the experiment's schedule
    # fields and each variant's own status
    schedule: RunSchedule | None = None
    schedule_kind: ScheduleKind = "sequential"
    rounds: int = 1
    block: int = 1
    aa_control: bool = False
    variant_states: list[VariantState] = []


class RunPage(BaseModel):
    """One page of runs, newest first."""

    items: list[RunRead]
    total: int
    limit: int
    offset: int


class RunUpdate(RequestModel):
    """PATCH /api/runs/{id}: a name (empty string: back to the experiment's) and notes."""

    name: str | None = Field(None, max_length=200)
    notes: str | None = Field(None, max_length=20_000)


RunSort = Literal["created_at", "id", "status", "name", "workload"]


class RunFilter(BaseModel):
    """Runs list filters; all optional, combined with AND. Dates are ISO 8601, UTC when naive."""

    workload: str | None = None
    target: str | None = Field(None, description="Target name, e.g. mysql-9.7 (or a part of it).")
    status: list[JobStatus] = []
    created_from: datetime | None = None
    created_to: datetime | None = None
    q: str | None = Field(None, max_length=200, description="Free text in run name, experiment name, notes.")
    sort: RunSort = "created_at"
    order: Literal["asc", "desc"] = "desc"
