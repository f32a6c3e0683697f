"""A replay as the execution layer sees it: its lease kind and its JobKind (execution/kinds.py),
registered with the reaper at a worker's start (job_kinds.py, worker_start.py).

A replay that did not succeed stops every instance of its targets (`sweep`), not only the ones it
knows it started: its cancel may stop servers still starting. Its end clears its progress when it is
cancelled or reaped (a failed one keeps the step it failed at); its report (replay/runner.py) is
written before its end.
"""

from typing import Any

from sqlalchemy import select

from upgradelab.db import sync_session, utcnow
from upgradelab.execution.kinds import Ending, JobKind
from upgradelab.execution.leases import LeaseKind
from upgradelab.execution.status import FINAL_STATUSES, JobStatus
from upgradelab.replay.models import ReplayRun
from upgradelab.streaming.publisher import publish_status
from upgradelab.targets.models import Target

REPLAYS = LeaseKind(
    "replay",
    ReplayRun,
    JobStatus.queued,
    JobStatus.running,
    (JobStatus.running,),
    tuple(FINAL_STATUSES),
)


def targets_of(replay_id: int) -> list[Target]:
    """The targets the replay's variants name (replay_run.variants), detached from their session."""
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        names = {v.target for v in (replay.variants if replay else [])}
        targets = list(session.scalars(select(Target).where(Target.name.in_(names))))
        for target in targets:
            session.expunge(target)
    return targets


def _final_fields(ending: Ending) -> dict[str, Any]:
    fields: dict[str, Any] = {"status": ending.status, "error": ending.error, "ended_at": utcnow()}
    if ending.reaped or ending.status == JobStatus.cancelled:
        fields["progress"] = None  # a failed replay keeps the step it failed at
    return fields | ending.fields


def _published(replay_id: int, fields: dict[str, Any]) -> None:
    publish_status(replay_id, fields, final=True, kind="replay")


REPLAY_JOBS = JobKind(
    REPLAYS,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=targets_of,
    final_fields=_final_fields,
    published=_published,
    sweep=True,
)
