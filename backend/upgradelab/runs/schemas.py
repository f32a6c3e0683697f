"""Run API shapes."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from upgradelab.runs.models import RunStatus


class RunRead(BaseModel):
    """A run with its progress: iterations_done counts stored iterations over all variants."""

    id: int
    experiment_id: int
    name: str
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
