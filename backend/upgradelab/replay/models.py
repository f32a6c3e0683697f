"""A replay run's record: a query source replayed on a dataset across variants, its status (a
JobStatus, execution/status.py) and its stored report. The replay executor's own record: the dataset
records that read it (a dataset's replays, its copies' slots) are replay/dataset_*.py."""

from datetime import datetime

from sqlalchemy import ForeignKey, LargeBinary, String, Text, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.db import Base, ModelJSON, utcnow
from upgradelab.execution.status import JobStatus
from upgradelab.measurement import ReplayVariantSpec, SourceStatement
from upgradelab.replay.report import ReplayReport
from upgradelab.replay.schemas import ReplayProgress, ReplaySchedule, ShardProgress
from upgradelab.users.models import User


class ReplayRun(Base):
    """Row of `replay_run`. status: a JobStatus. Its JSON columns are typed (db.ModelJSON, validated on
    read): `variants`: measurement ReplayVariantSpec each; `statements` / `skipped_writes`: the parsed
    source (measurement/sources.py SourceStatement each); `report`: replay/document.report_document() (a
    report.ReplayReport) once succeeded; `progress`: the current step (schemas.ReplayProgress).
    `repeats`: the number of rounds (the column predates rounds); `schedule`: schemas.ReplaySchedule,
    the extension's budget from creation and execution/schedule.py Schedule.as_json() of the rounds
    beside it, stored before the first server starts (NULL for replays made before rounds).
    `statement_timeout_s`: every replayed statement's bound (seconds); `cancel_requested`: the user
    asked to cancel (its cancel route), the worker's cancel watch ends the replay (replay/runner.py).
    `shards`: over how many hosts of its pool it is to be spread (replay/sharding.py): 1 none (the
    default), 0 as many as the pool has live workers when it starts."""

    __tablename__ = "replay_run"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    # RESTRICT: a report outlives its dataset (issue 24); a deleted dataset stays as a record
    # (datasets/models.py), and a row delete that would orphan a report fails instead of cascading.
    dataset_id: Mapped[int] = mapped_column(ForeignKey("dataset.id", ondelete="RESTRICT"))
    source_format: Mapped[str] = mapped_column(String(16))
    variants: Mapped[list[ReplayVariantSpec]] = mapped_column(ModelJSON(list[ReplayVariantSpec]))
    repeats: Mapped[int]
    passes: Mapped[int] = mapped_column(default=1, server_default="1")  # per block (engine.py)
    sample: Mapped[int]
    allow_writes: Mapped[bool] = mapped_column(default=False)
    statement_timeout_s: Mapped[float] = mapped_column(default=30.0, server_default="30")
    cancel_requested: Mapped[bool] = mapped_column(default=False, server_default=false())
    shards: Mapped[int] = mapped_column(default=1, server_default="1")
    statements: Mapped[list[SourceStatement]] = mapped_column(ModelJSON(list[SourceStatement]))
    skipped_writes: Mapped[list[SourceStatement]] = mapped_column(ModelJSON(list[SourceStatement]))
    status: Mapped[str] = mapped_column(String(16), default=JobStatus.queued)
    schedule: Mapped[ReplaySchedule | None] = mapped_column(ModelJSON(ReplaySchedule), default=None)
    progress: Mapped[ReplayProgress | None] = mapped_column(ModelJSON(ReplayProgress), default=None)
    report: Mapped[ReplayReport | None] = mapped_column(ModelJSON(ReplayReport), default=None)
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


class ReplayShard(Base):
    """Row of `replay_shard`: shard `shard` (0-based) of replay `replay_id` (replay/sharding.py), the
    indexes of the replay's statements it runs (source order, whole fingerprints: shards.split), the
    worker it was sent to (its Celery node name; shard 0 runs in the replay's own worker), its status
    (a JobStatus), lease (execution/leases.py, REPLAY_SHARDS), progress (schemas.ShardProgress)
    and `result`: its VariantReplays, sealed (sharding.seal: pickled and signed with the worker
    credential; written and read by the lab's workers only, never shown)."""

    __tablename__ = "replay_shard"
    __table_args__ = (UniqueConstraint("replay_id", "shard", name="uq_replay_shard_replay_shard"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    replay_id: Mapped[int] = mapped_column(ForeignKey(ReplayRun.id, ondelete="CASCADE"))
    shard: Mapped[int]
    statements: Mapped[list[int]] = mapped_column(ModelJSON(list[int]))
    worker: Mapped[str] = mapped_column(String(200))
    first_slot: Mapped[int] = mapped_column(default=0)
    status: Mapped[str] = mapped_column(String(16), default=JobStatus.queued)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    progress: Mapped[ShardProgress | None] = mapped_column(ModelJSON(ShardProgress), default=None)
    result: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
    lease_owner: Mapped[str | None] = mapped_column(String(200), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
