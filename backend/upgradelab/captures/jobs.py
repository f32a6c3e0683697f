"""A capture as the execution layer sees it: its lease kind and JobKind, registered with the reaper
at a worker's start (job_kinds.py). Its one target is locked while it reads (execution/lifecycle.py):
a local or docker target's server is started for it and stopped at its end (`sweep` when it fails);
an existing server is only read."""

from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.execution.kinds import JobKind, job_targets
from upgradelab.execution.leases import job_lease
from upgradelab.execution.status import JobStatus
from upgradelab.targets.models import Target

CAPTURES = job_lease("capture", Capture)


def targets_of(capture_id: int) -> list[Target]:
    """The capture's target (none when it was deleted since), detached from its session."""
    return job_targets(Capture, capture_id, lambda row: [row.target])


CAPTURE_JOBS = JobKind(
    CAPTURES,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=targets_of,
    sweep=True,
    task="upgradelab.captures.execute",
    time_limit_s=3600,
    runner="upgradelab.captures.runner:execute_capture",
    api_path="/api/captures/{capture_id}",
    api_name="capture",
)


CHECKS = job_lease("capture_check", CaptureCheck)


def check_targets_of(check_id: int) -> list[Target]:
    """The check's target (the new version's binary), detached; none when it was deleted since."""
    return job_targets(CaptureCheck, check_id, lambda row: [row.target])


# A check locks the new version's target: its scratch instance is that target's slot 0.
CHECK_JOBS = JobKind(
    CHECKS,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=check_targets_of,
    sweep=True,
    task="upgradelab.captures.check",
    time_limit_s=3600,
    runner="upgradelab.captures.check_runner:execute_check",
    label="check",
    api_path="/api/captures/{capture_id}/checks/{check_id}",
    api_name="check",
)
