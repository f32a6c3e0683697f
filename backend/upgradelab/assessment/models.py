"""An assessment: a team's server (or a capture, or its option file) checked against each new
version, its workload replayed and its slower queries' fixes searched, ended by one report. A job on
jobs: each step is the existing kind's job (its own row, linked in `children`); the assessment is
their parent with one status, progress, cancel and budget (assessment/runner.py)."""

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.assessment.report import AssessmentReport
from upgradelab.assessment.schemas import AssessmentChildren, AssessmentProgress
from upgradelab.db import Base, ModelJSON, utcnow
from upgradelab.execution.status import JobStatus, job_status_column
from upgradelab.sharing.models import live_share, unshared_when_made
from upgradelab.users.models import User


@unshared_when_made
class Assessment(Base):
    """Row of `assessment`.

    The request: `target` (the team's existing target, captured read-only), or `children.capture_id`
    given at creation, or `my_cnf` (an option file's text); `versions`: the new versions' lab targets
    (JSON list of names); `baseline`: the lab target of the current version (the replays' first
    variant); `dataset` and `queries` (the replays' dataset and query log; None: the capture's);
    `budget_min`: the whole assessment's minutes; `fix_tolerance`: its fix searches' tolerance.
    `children`: the child jobs' ids (schemas.AssessmentChildren); `report`: report.AssessmentReport
    once it ended; `progress`: schemas.AssessmentProgress; every JSON column typed (db.ModelJSON)."""

    __tablename__ = "assessment"

    id: Mapped[int] = mapped_column(primary_key=True)
    target: Mapped[str | None] = mapped_column(String(64), default=None)
    my_cnf: Mapped[str | None] = mapped_column(Text, default=None)
    versions: Mapped[list[str]] = mapped_column(ModelJSON(list[str]), default=list)
    baseline: Mapped[str | None] = mapped_column(String(64), default=None)
    dataset: Mapped[str | None] = mapped_column(String(64), default=None)
    queries: Mapped[str | None] = mapped_column(Text, default=None)
    budget_min: Mapped[float] = mapped_column(default=60.0)
    fix_tolerance: Mapped[float] = mapped_column(default=0.10)
    status: Mapped[JobStatus] = mapped_column(job_status_column(), default=JobStatus.queued, index=True)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    children: Mapped[AssessmentChildren] = mapped_column(
        ModelJSON(AssessmentChildren), default=AssessmentChildren
    )
    progress: Mapped[AssessmentProgress | None] = mapped_column(ModelJSON(AssessmentProgress), default=None)
    report: Mapped[AssessmentReport | None] = mapped_column(ModelJSON(AssessmentReport), default=None)
    shared: Mapped[bool] = live_share("assessment", id)
    created_by: Mapped[int | None] = mapped_column(ForeignKey(User.id, ondelete="SET NULL"), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    lease_owner: Mapped[str | None] = mapped_column(String(200), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(default=None)
