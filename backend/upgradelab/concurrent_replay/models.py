"""A concurrent replay's record (issue 50): a workload's sessions, as a general or slow log held them,
replayed together on identical copies of a dataset across variants, trial after trial; its status
(a JobStatus, execution/status.py), what each trial measured and the decided report."""

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.concurrent_replay.report import ConcurrentReport, TrialRecord
from upgradelab.concurrent_replay.schemas import ConcurrentProgress
from upgradelab.db import Base, ModelJSON, UTCDateTime, utcnow
from upgradelab.execution.schedule import RunSchedule
from upgradelab.execution.status import JobStatus, job_status_column
from upgradelab.measurement import ReplayVariantSpec, SessionLog
from upgradelab.sharing.models import live_share, unshared_when_made
from upgradelab.users.models import User

KIND = "concurrent_replay"  # its JobKind's name (jobs.py), its share links' kind


@unshared_when_made
class ConcurrentReplay(Base):
    """Row of `concurrent_replay`. Its JSON columns are typed (db.ModelJSON, validated on read):
    `variants` (measurement ReplayVariantSpec each; the first is the baseline, `aa_control` marks the
    A/A control), `sessions` (the source read into sessions, measurement SessionLog: what was cut from
    it listed), `schedule` (execution/schedule.py RunSchedule: every round's variant order from the
    stored seed, the job's id), `trials` (report.TrialRecord each, appended as each trial ends),
    `progress` (schemas.ConcurrentProgress: the variant, round and phase now), `report`
    (report.ConcurrentReport once decided; partial after a cancel). `rounds`: trials per variant;
    `speed`: the gaps' factor (1 as recorded, 0 back to back); `statement_timeout_s`: every
    statement's bound (seconds); `max_trial_s`: one trial's bound (seconds); `max_sessions`: the
    sessions a trial may open. `cancel_requested`: its cancel route asked; the worker's cancel watch
    ends the replay in whatever phase it is (concurrent_replay/runner.py)."""

    __tablename__ = "concurrent_replay"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    # RESTRICT: a report outlives its dataset (as a replay's)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("dataset.id", ondelete="RESTRICT"))
    source_format: Mapped[str] = mapped_column(String(16))
    variants: Mapped[list[ReplayVariantSpec]] = mapped_column(ModelJSON(list[ReplayVariantSpec]))
    sessions: Mapped[SessionLog] = mapped_column(ModelJSON(SessionLog))
    rounds: Mapped[int] = mapped_column(default=5)
    speed: Mapped[float] = mapped_column(default=1.0)
    statement_timeout_s: Mapped[float] = mapped_column(default=30.0)
    max_trial_s: Mapped[float] = mapped_column(default=600.0)
    max_sessions: Mapped[int] = mapped_column(default=256)
    status: Mapped[JobStatus] = mapped_column(job_status_column(), default=JobStatus.queued, index=True)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    schedule: Mapped[RunSchedule | None] = mapped_column(ModelJSON(RunSchedule), default=None)
    trials: Mapped[list[TrialRecord]] = mapped_column(ModelJSON(list[TrialRecord]), default=list)
    progress: Mapped[ConcurrentProgress | None] = mapped_column(ModelJSON(ConcurrentProgress), default=None)
    report: Mapped[ConcurrentReport | None] = mapped_column(ModelJSON(ConcurrentReport), default=None)
    lease_owner: Mapped[str | None] = mapped_column(String(200), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    # who created it (app_user.id): only they or an admin may cancel it (users/auth.py require_owner)
    created_by: Mapped[int | None] = mapped_column(ForeignKey(User.id, ondelete="SET NULL"), default=None)
    # whether a read-only link is live (sharing/models.py job_share), read with the row
    shared: Mapped[bool] = live_share(KIND, id)
