"""A replay run's record: a query source replayed on a dataset across variants, its status (a
JobStatus, execution/status.py) and its stored report. The replay executor's own record: the dataset
records that read it (a dataset's replays, its copies' slots) are replay/dataset_*.py."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.db import Base, utcnow
from upgradelab.execution.status import JobStatus
from upgradelab.users.models import User


class ReplayRun(Base):
    """Row of `replay_run`. status: a JobStatus. `variants`: [{"name",
    "target", "preset", "options"}]; `statements` / `skipped_writes`: the parsed source (sources.py);
    `report`: replay/document.report_document() once succeeded; `progress`: the current step. `repeats`:
    the number of rounds (the column predates rounds); `schedule`: execution/schedule.py
    Schedule.as_json() of the rounds, stored before the first server starts (NULL for replays made
    before rounds).
    `statement_timeout_s`: every replayed statement's bound (seconds); `cancel_requested`: the user
    asked to cancel (its cancel route), the worker's cancel watch ends the replay (replay/runner.py)."""

    __tablename__ = "replay_run"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    # RESTRICT: a report outlives its dataset (issue 24); a deleted dataset stays as a record
    # (datasets/models.py), and a row delete that would orphan a report fails instead of cascading.
    dataset_id: Mapped[int] = mapped_column(ForeignKey("dataset.id", ondelete="RESTRICT"))
    source_format: Mapped[str] = mapped_column(String(16))
    variants: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    repeats: Mapped[int]
    passes: Mapped[int] = mapped_column(default=1, server_default="1")  # per block (engine.py)
    sample: Mapped[int]
    allow_writes: Mapped[bool] = mapped_column(default=False)
    statement_timeout_s: Mapped[float] = mapped_column(default=30.0, server_default="30")
    cancel_requested: Mapped[bool] = mapped_column(default=False, server_default=false())
    statements: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    skipped_writes: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default=JobStatus.queued)
    schedule: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    progress: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    report: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    # execution/leases.py (replay/jobs.py REPLAYS): the worker executing it, and until when (renewed
    # by its heartbeat)
    lease_owner: Mapped[str | None] = mapped_column(String(200), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(default=None)
    # who created it (app_user.id; NULL: from before owners were recorded, or made by the lab): only
    # they or an admin may cancel it (users/auth.py require_owner, migration 0021_owners)
    created_by: Mapped[int | None] = mapped_column(ForeignKey(User.id, ondelete="SET NULL"), default=None)
