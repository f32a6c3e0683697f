"""The toy kind's table (the recipe's step 1): the columns every job kind has (status, error,
cancel_requested, lease_owner, lease_expires_at, started_at, finished_at, progress, created_by; its
share links are rows of the one `job_share` table) and its own (`steps`, `done`). In a metadata of
its own: the test makes and drops it, and the product's metadata (the migrations' check) never sees
it."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from upgradelab.db import UTCDateTime, utcnow
from upgradelab.execution.status import JobStatus, job_status_column


class ToyBase(DeclarativeBase):
    """The toy's own metadata."""


class Toy(ToyBase):
    """Row of `test_toy_job`: a job that counts `steps` steps of `step_s` seconds each."""

    __tablename__ = "test_toy_job"

    id: Mapped[int] = mapped_column(primary_key=True)
    status: Mapped[JobStatus] = mapped_column(job_status_column(), default=JobStatus.queued)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    lease_owner: Mapped[str | None] = mapped_column(String(200), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    progress: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    created_by: Mapped[int | None] = mapped_column(default=None)
    steps: Mapped[int] = mapped_column(default=3)
    step_s: Mapped[float] = mapped_column(default=0.2)
    done: Mapped[int] = mapped_column(default=0)
