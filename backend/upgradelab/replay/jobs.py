"""A replay as the execution layer sees it: its lease kind and its JobKind (execution/kinds.py),
registered with the reaper at a worker's start (job_kinds.py, worker_start.py).

A replay that did not succeed stops every instance of its targets (`sweep`), not only the ones it
knows it started: its cancel may stop servers still starting. A sharded one the reaper ends is
final, its shards with it, before its servers are stopped (`ends_first`): its shards on other hosts
stop once they see it, meanwhile. Its end clears its progress when it is
cancelled or reaped (a failed one keeps the step it failed at); its report (replay/runner.py) is
written before its end.
"""

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from upgradelab.db import sync_session, utcnow
from upgradelab.execution.kinds import Ending, JobKind, job_targets
from upgradelab.execution.leases import job_lease
from upgradelab.execution.status import JobStatus
from upgradelab.measurement import MeasuredWorkload
from upgradelab.replay.models import ReplayRun, ReplayShard
from upgradelab.targets.models import Target

REPLAYS = job_lease("replay", ReplayRun, None)
# A sharded replay's shard (replay/sharding.py): leased by the worker that runs it, claimed with its
# start time; its task is REPLAY_SHARD_JOBS's, its end the coordinator's to read.
REPLAY_SHARDS = job_lease("replay_shard", ReplayShard)


def targets_of(replay_id: int) -> list[Target]:
    """The targets the replay's variants name (replay_run.variants), detached from their session."""
    return job_targets(ReplayRun, replay_id, lambda row: [v.target for v in row.variants])


def workload_of(session: Session, replay_id: int) -> MeasuredWorkload | None:
    """The replay's measured workload (measurement/workload.py, its WorkloadSource): its variants,
    statements, skipped writes, dataset, bounds and its A/A control's floor per fingerprint, as stored
    in replay_run; None when the replay is gone."""
    replay = session.get(ReplayRun, replay_id)
    if replay is None:
        return None
    report = replay.report
    return MeasuredWorkload(
        kind=REPLAYS.name,
        job_id=replay.id,
        status=str(replay.status),
        variants=list(replay.variants),
        statements=list(replay.statements),
        skipped_writes=list(replay.skipped_writes),
        allow_writes=replay.allow_writes,
        dataset_id=replay.dataset_id,
        statement_timeout_s=replay.statement_timeout_s,
        passes=replay.passes,
        aa_control=report.aa_control if report is not None else None,
        floors={f.fingerprint_id: f.floor for f in report.fingerprints if f.floor} if report else {},
    )


def end_shards(replay_id: int, ending: Ending) -> None:
    """The replay's run-end hook (its worker's end, the reaper's, a cancel's): every shard of it not
    final ends with it (cancelled, or failed "the replay ended: ..."), its lease dropped, so its
    worker's heartbeat finds the lease lost and its cancel watch stops it (replay/sharding.py)."""
    cancelled = ending.status == JobStatus.cancelled
    with sync_session() as session:
        session.execute(
            update(ReplayShard)
            .where(
                ReplayShard.replay_id == replay_id,
                ReplayShard.status.in_([JobStatus.queued, JobStatus.running]),
            )
            .values(
                status=JobStatus.cancelled if cancelled else JobStatus.failed,
                error=None if cancelled else f"the replay ended: {ending.error or ending.status}",
                finished_at=utcnow(),
                lease_owner=None,
                lease_expires_at=None,
            )
        )
        session.commit()


def sharded(replay_id: int) -> bool:
    """Whether the replay was spread over shards (it has `replay_shard` rows: replay/sharding.py)."""
    with sync_session() as session:
        found = session.scalar(select(ReplayShard.id).where(ReplayShard.replay_id == replay_id).limit(1))
    return found is not None


def _final_fields(ending: Ending) -> dict[str, Any]:
    fields: dict[str, Any] = {"status": ending.status, "error": ending.error, "ended_at": utcnow()}
    if ending.reaped or ending.status == JobStatus.cancelled:
        fields["progress"] = None  # a failed replay keeps the step it failed at
    return fields | ending.fields


REPLAY_JOBS = JobKind(
    REPLAYS,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=targets_of,
    final_fields=_final_fields,
    on_end=end_shards,
    sweep=True,
    ends_first=sharded,
    task="upgradelab.replay.execute",
    runner="upgradelab.replay.runner:execute_replay",
    label="replay",
    api_path="/api/replays/{replay_id}",
    api_name="replay",
    workload=workload_of,
)


REPLAY_SHARD_JOBS = JobKind(
    REPLAY_SHARDS,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    # none: the replay's own worker holds its targets' locks; a shard's instances are stopped by
    # its own end (execution/instances.py started) and, its worker gone, by that host's next start
    targets_of=lambda _shard_id: [],
    published=lambda _shard_id, _fields: None,  # no stream: the replay's progress says it
    task="upgradelab.replay_shard.execute",
    runner="upgradelab.replay.shard_runner:execute_shard",
    label="replay shard",
)
