"""A replay as the execution layer sees it: its lease kind and its JobKind (execution/kinds.py),
registered with the reaper at a worker's start (job_kinds.py, worker_start.py).

A replay that did not succeed stops every instance of its targets (`sweep`), not only the ones it
knows it started: its cancel may stop servers still starting. Its end clears its progress when it is
cancelled or reaped (a failed one keeps the step it failed at); its report (replay/runner.py) is
written before its end.
"""

from typing import Any

from sqlalchemy.orm import Session

from upgradelab.db import utcnow
from upgradelab.execution.kinds import Ending, JobKind, job_targets
from upgradelab.execution.leases import job_lease
from upgradelab.execution.status import JobStatus
from upgradelab.measurement import MeasuredWorkload
from upgradelab.replay.models import ReplayRun
from upgradelab.targets.models import Target

REPLAYS = job_lease("replay", ReplayRun, None)


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
    sweep=True,
    task="upgradelab.replay.execute",
    runner="upgradelab.replay.runner:execute_replay",
    label="replay",
    api_path="/api/replays/{replay_id}",
    api_name="replay",
    workload=workload_of,
)
