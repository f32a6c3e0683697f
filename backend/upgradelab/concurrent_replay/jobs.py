"""A concurrent replay as the execution layer sees it: its lease kind and JobKind
(execution/kinds.py), registered with the reaper at a worker's start (job_kinds.py,
worker_start.py).

It holds its variants' targets as a replay does: their locks while it runs, every instance of them
stopped when it does not succeed (`sweep`), the reaper's "worker lost" if its worker dies. Its end
clears its progress unless it failed (the step it failed at is kept).
"""

from typing import Any

from upgradelab.concurrent_replay.models import KIND, ConcurrentReplay
from upgradelab.execution.kinds import Ending, JobKind, finished_fields, job_targets
from upgradelab.execution.leases import job_lease
from upgradelab.execution.status import JobStatus
from upgradelab.targets.models import Target

CONCURRENT_REPLAYS = job_lease(KIND, ConcurrentReplay)


def targets_of(job_id: int) -> list[Target]:
    """The targets its variants name (concurrent_replay.variants), detached from their session."""
    return job_targets(ConcurrentReplay, job_id, lambda row: [v.target for v in row.variants])


def _final_fields(ending: Ending) -> dict[str, Any]:
    fields = finished_fields(ending)
    if ending.status != JobStatus.failed:
        fields.setdefault("progress", None)
    return fields


CONCURRENT_REPLAY_JOBS = JobKind(
    CONCURRENT_REPLAYS,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=targets_of,
    final_fields=_final_fields,
    sweep=True,
    time_limit_s=12 * 3600,
    runner="upgradelab.concurrent_replay.runner:execute_concurrent_replay",
    label="concurrent replay",
    api_path="/api/concurrent-replays/{replay_id}",
    api_name="concurrent_replay",
)
