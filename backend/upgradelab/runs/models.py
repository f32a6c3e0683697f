"""A run: one execution of an experiment, with its lifecycle status."""

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import Enum, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from upgradelab.db import Base, utcnow
from upgradelab.experiments.models import Experiment


class RunStatus(enum.StrEnum):
    """queued -> provisioning -> running -> succeeded | failed | cancelled (see docs/domain.md)."""

    queued = "queued"
    provisioning = "provisioning"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"

    @property
    def is_final(self) -> bool:
        return self in FINAL_STATUSES


FINAL_STATUSES = frozenset({RunStatus.succeeded, RunStatus.failed, RunStatus.cancelled})


class Run(Base):
    """Row of `run`. `error` is shown to the user when the run failed."""

    __tablename__ = "run"
    __table_args__ = (Index("ix_run_status_created_at", "status", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    experiment_id: Mapped[int] = mapped_column(ForeignKey("experiment.id", ondelete="CASCADE"), index=True)
    status: Mapped[RunStatus] = mapped_column(
        Enum(RunStatus, native_enum=False, length=16, values_callable=lambda kind: [m.value for m in kind]),
        default=RunStatus.queued,
        index=True,
    )
    error: Mapped[str | None] = mapped_column(Text, default=None)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    current_variant: Mapped[int | None] = mapped_column(default=None)  # index into experiment.variants
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    # dataset preparation: {"phase", "rows", "rows_total", "bytes", "elapsed_s", "estimate_s"}
    progress: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    # History: a name and notes the team can edit; targets as ",name,name," for the target filter.
    name: Mapped[str | None] = mapped_column(String(200), default=None)
    notes: Mapped[str | None] = mapped_column(Text, default=None)
    targets: Mapped[str] = mapped_column(String(500), default="", server_default="")

    experiment: Mapped[Experiment] = relationship(lazy="joined")
