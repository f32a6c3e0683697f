"""Attribution API shapes: AttributionCreate in, AttributionRead out."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from upgradelab.execution.status import JobStatus
from upgradelab.request_model import RequestModel


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
    gap: dict[str, Any] | None = Field(
        description="The origin run's verdict: variant / baseline (VerdictRead)."
    )
    candidates: list[dict[str, Any]]
    untestable: list[dict[str, Any]]
    steps: list[dict[str, Any]]
    progress: dict[str, Any] | None
    result: dict[str, Any] | None
    share_token: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
