"""Run API shapes."""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from upgradelab.runs.models import RunStatus


class RunRead(BaseModel):
    """A run with its progress: iterations_done counts stored iterations over all variants."""

    id: int
    experiment_id: int
    name: str
    notes: str | None = None
    targets: list[str] = []
    workload: str
    status: RunStatus
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    iterations: int
    variants: list[str]
    current_variant: int | None
    iterations_done: int
    iterations_total: int
    # issue 3 (templates): cold/warm policy and dataset preparation progress
    # {"phase", "rows", "rows_total", "bytes", "elapsed_s", "estimate_s"} (None when not preparing)
    policy: str = "warm"
    progress: dict[str, Any] | None = None


class RunPage(BaseModel):
    """One page of runs, newest first."""

    items: list[RunRead]
    total: int
    limit: int
    offset: int


class RunUpdate(BaseModel):
    """PATCH /api/runs/{id}: a name (empty string: back to the experiment's) and notes."""

    name: str | None = Field(None, max_length=200)
    notes: str | None = Field(None, max_length=20_000)


RunSort = Literal["created_at", "id", "status", "name", "workload"]


class RunFilter(BaseModel):
    """Runs list filters; all optional, combined with AND. Dates are ISO 8601, UTC when naive."""

    workload: str | None = None
    target: str | None = Field(None, description="Target name, e.g. mysql-9.7 (or a part of it).")
    status: list[str] = []
    created_from: datetime | None = None
    created_to: datetime | None = None
    q: str | None = Field(None, max_length=200, description="Free text in run name, experiment name, notes.")
    sort: RunSort = "created_at"
    order: Literal["asc", "desc"] = "desc"
