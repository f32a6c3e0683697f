"""An experiment (a workload x variants x iterations definition) and its runs: the records the run
executor (runs/executor/) writes and results, probes and the API read. In the layer under results/ and
probes/, which store and read a run's rows by them (the import-linter contracts' exceptions say so)."""

import enum
from datetime import datetime

from pydantic import BaseModel, JsonValue
from sqlalchemy import Enum, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from upgradelab.db import Base, ModelJSON, utcnow
from upgradelab.execution.schedule import RunSchedule
from upgradelab.execution.status import JobStatus, job_status_column
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.users.models import User


class RunProgress(BaseModel):
    """Dataset preparation progress (workloads/base.DatasetProgress): rows and bytes written so far,
    elapsed and estimated seconds; `spec_hash` when a prepared dataset was reused instead."""

    phase: str
    rows: int | None = None
    rows_total: int | None = None
    bytes: int | None = None
    elapsed_s: float | None = None
    estimate_s: float | None = None
    spec_hash: str | None = None


class HostStorage(BaseModel):
    """The mount holding the servers' directory (runs/executor/context.storage_of)."""

    path: str
    mount_point: str | None
    fs_type: str | None
    device: str | None


class HostContext(BaseModel):
    """Host facts read at run start: MemTotal in bytes, kernel as `uname -r`; None when the host did
    not give them (defaults, so contexts stored by older versions still read)."""

    cpu_model: str | None = None
    cores: int | None = None
    memory_bytes: int | None = None
    kernel: str | None = None
    storage: HostStorage | None = None


class UpgradeLabVersion(BaseModel):
    """The package version and git commit that ran the run."""

    package: str | None = None
    git_commit: str | None = None


class RunHostContext(BaseModel):
    """run.context (runs/executor/context.run_context)."""

    host: HostContext
    upgradelab_version: UpgradeLabVersion


class Experiment(Base):
    """Row of `experiment`. `variants` the resolved variants in run order (the A/A control last);
    `parameters` the workload's Parameters model as its JSON (which model depends on `workload`, so
    the column holds JSON values and its readers validate them with WORKLOADS[workload].Parameters)."""

    __tablename__ = "experiment"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    workload: Mapped[str] = mapped_column(String(64), index=True)
    parameters: Mapped[dict[str, JsonValue]] = mapped_column(ModelJSON(dict[str, JsonValue]), default=dict)
    variants: Mapped[list[ResolvedVariant]] = mapped_column(ModelJSON(list[ResolvedVariant]), default=list)
    iterations: Mapped[int]
    policy: Mapped[str] = mapped_column(String(16), default="warm")  # workloads.base.POLICIES
    # Schedule (issue 12): `interleaved` runs `rounds` rounds, each variant one block of `block`
    # iterations per group per round in an order shuffled from `seed`; `sequential` runs every
    # variant's iterations one variant after another. aa_control adds a second instance of the baseline.
    schedule: Mapped[str] = mapped_column(String(16), default="interleaved", server_default="sequential")
    rounds: Mapped[int] = mapped_column(default=1, server_default="1")
    block: Mapped[int] = mapped_column(default=1, server_default="1")
    aa_control: Mapped[bool] = mapped_column(default=False, server_default="0")
    seed: Mapped[int | None] = mapped_column(default=None)
    # Auto-extension (interleaved only, None = off): after the planned rounds the runner adds rounds
    # while a verdict is inconclusive, up to max_rounds rounds in all and max_minutes since the first block.
    max_rounds: Mapped[int | None] = mapped_column(default=None)
    max_minutes: Mapped[float | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Run(Base):
    """Row of `run`. `error` is shown to the user when the run failed."""

    __tablename__ = "run"
    __table_args__ = (
        Index("ix_run_status_created_at", "status", "created_at"),
        Index("ix_run_status_lease", "status", "lease_expires_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    experiment_id: Mapped[int] = mapped_column(ForeignKey("experiment.id", ondelete="CASCADE"), index=True)
    status: Mapped[JobStatus] = mapped_column(
        job_status_column(),
        default=JobStatus.queued,
        index=True,
    )
    error: Mapped[str | None] = mapped_column(Text, default=None)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    current_variant: Mapped[int | None] = mapped_column(default=None)  # index into experiment.variants
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    # dataset preparation (RunProgress): phase, rows, rows_total, bytes, elapsed_s, estimate_s
    progress: Mapped[RunProgress | None] = mapped_column(ModelJSON(RunProgress), default=None)
    # History: a name and notes the team can edit; targets as ",name,name," for the target filter.
    name: Mapped[str | None] = mapped_column(String(200), default=None)
    notes: Mapped[str | None] = mapped_column(Text, default=None)
    targets: Mapped[str] = mapped_column(String(500), default="", server_default="")
    # who created it (app_user.id; NULL: from before owners were recorded, or made by the lab): only
    # they or an admin may cancel it (users/auth.py require_owner, migration 0021_owners)
    created_by: Mapped[int | None] = mapped_column(ForeignKey(User.id, ondelete="SET NULL"), default=None)

    # The schedule as executed (issue 12): {"kind", "seed", "rounds", "block", "order": [[variant
    # index, ...] per round]} (execution/schedule.py RunSchedule), and what the run ran on
    # (RunHostContext: host facts and Upgrade Lab's version), both typed through db.ModelJSON.
    # Written at run start (the schedule again, longer, after each extension step).
    schedule: Mapped[RunSchedule | None] = mapped_column(ModelJSON(RunSchedule), default=None)
    context: Mapped[RunHostContext | None] = mapped_column(ModelJSON(RunHostContext), default=None)

    # The lease of the worker executing the run (execution/leases.py): "<host>:<pid>:<token>" and the
    # time it must be renewed by; the reaper (execution/reaper.py) ends a non-final run whose lease expired.
    lease_owner: Mapped[str | None] = mapped_column(String(200), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(default=None)

    experiment: Mapped[Experiment] = relationship(lazy="joined")


class VariantStatus(enum.StrEnum):
    """A variant within a run: pending -> running -> succeeded | failed (its own reason)."""

    pending = "pending"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"


class RunVariant(Base):
    """Row of `run_variant`: one variant of one run, its own status and what produced its results.

    Context (Conbench's "context"), captured from the variant's instance when it started and never
    overwritten by a later run: version (SELECT VERSION()), version_comment, provisioner kind,
    image or binary, the effective option file text and SHOW GLOBAL VARIABLES as {name: value}.
    """

    __tablename__ = "run_variant"
    __table_args__ = (Index("ix_run_variant_run_index", "run_id", "variant_index", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"))
    variant_index: Mapped[int]
    name: Mapped[str] = mapped_column(String(200))
    target: Mapped[str] = mapped_column(String(64), default="")
    status: Mapped[VariantStatus] = mapped_column(
        Enum(VariantStatus, native_enum=False, length=16, values_callable=lambda k: [m.value for m in k]),
        default=VariantStatus.pending,
    )
    error: Mapped[str | None] = mapped_column(Text, default=None)
    is_aa_control: Mapped[bool] = mapped_column(default=False)
    provisioner: Mapped[str | None] = mapped_column(String(32), default=None)
    image_or_binary: Mapped[str | None] = mapped_column(String(500), default=None)
    version: Mapped[str | None] = mapped_column(String(200), default=None)
    version_comment: Mapped[str | None] = mapped_column(String(500), default=None)
    option_file: Mapped[str | None] = mapped_column(Text, default=None)
    variables: Mapped[dict[str, str] | None] = mapped_column(ModelJSON(dict[str, str]), default=None)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
