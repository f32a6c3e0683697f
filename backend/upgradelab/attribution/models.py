"""An attribution: which of the settings that differ between two variants of a run explain its gap.

Executed by attribution/runner.py as a series of step runs (ordinary runs of the same workload, see
attribution/steps.py); its lease and heartbeat go through execution/ like a run's (attribution/jobs.py).
"""

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.attribution.schemas import (
    AttributionProgress,
    AttributionResult,
    CandidateRead,
    StepRead,
    UntestableRead,
)
from upgradelab.db import Base, ModelJSON, utcnow
from upgradelab.execution.status import JobStatus, job_status_column
from upgradelab.results.stats.verdicts import VerdictRead
from upgradelab.sharing.models import live_share, unshared_when_made
from upgradelab.users.models import User


@unshared_when_made
class Attribution(Base):
    """Row of `attribution`.

    Every JSON column is typed (db.ModelJSON, attribution/schemas.py, the API's shapes):
    candidates: the testable candidates (attribution/candidates.py Candidate) in the order tried,
    CandidateRead each; untestable: UntestableRead each ("cannot be tested"); steps: StepRead each
    (its run, subsets, gap and tests with their VerdictRead); progress: AttributionProgress; result:
    attribution/report.py `build` as AttributionResult.
    """

    __tablename__ = "attribution"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), index=True)
    variant: Mapped[str] = mapped_column(String(200))
    baseline: Mapped[str] = mapped_column(String(200))
    status: Mapped[JobStatus] = mapped_column(
        job_status_column(),
        default=JobStatus.queued,
        index=True,
    )
    error: Mapped[str | None] = mapped_column(Text, default=None)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    # what is searched: the gap's group and metric, the share a set must close, each step's schedule
    group: Mapped[str] = mapped_column(String(200), default="")
    metric: Mapped[str] = mapped_column(String(64), default="seconds")
    # the origin run's verdict variant / baseline (stored as its JSON, validated on read)
    gap: Mapped[VerdictRead | None] = mapped_column(ModelJSON(VerdictRead), default=None)
    target_share: Mapped[float] = mapped_column(default=0.8)
    rounds: Mapped[int] = mapped_column(default=5)
    block: Mapped[int] = mapped_column(default=1)
    budget_runs: Mapped[int] = mapped_column(default=12)
    budget_minutes: Mapped[float] = mapped_column(default=60.0)
    candidates: Mapped[list[CandidateRead]] = mapped_column(ModelJSON(list[CandidateRead]), default=list)
    untestable: Mapped[list[UntestableRead]] = mapped_column(ModelJSON(list[UntestableRead]), default=list)
    steps: Mapped[list[StepRead]] = mapped_column(ModelJSON(list[StepRead]), default=list)
    progress: Mapped[AttributionProgress | None] = mapped_column(ModelJSON(AttributionProgress), default=None)
    result: Mapped[AttributionResult | None] = mapped_column(ModelJSON(AttributionResult), default=None)
    # whether a read-only link is live (sharing/models.py job_share, migration 0032), read with the row
    shared: Mapped[bool] = live_share("attribution", id)
    # who created it (app_user.id; NULL: from before owners were recorded, or made by the lab): only
    # they or an admin may cancel it (users/auth.py require_owner, migration 0021_owners)
    created_by: Mapped[int | None] = mapped_column(ForeignKey(User.id, ondelete="SET NULL"), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    lease_owner: Mapped[str | None] = mapped_column(String(200), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(default=None)
