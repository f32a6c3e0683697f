"""An assessment as the execution layer sees it: its lease kind and JobKind (execution/kinds.py),
registered with the reaper at a worker's start (job_kinds.py).

It holds no target: each step is a child job of its own kind (a capture, a check, a replay, a fix
search) that locks its own targets while it runs (execution/lifecycle.py); the assessment locking
them too would keep its children from starting. Its cancel ends the running child through the
child's own cancel (assessment/runner.py).
"""

from upgradelab.assessment.models import Assessment
from upgradelab.execution.kinds import JobKind
from upgradelab.execution.leases import job_lease
from upgradelab.execution.status import JobStatus
from upgradelab.targets.models import Target

ASSESSMENTS = job_lease("assessment", Assessment)


def targets_of(_: int) -> list[Target]:
    """None: the children lock their own targets."""
    return []


ASSESSMENT_JOBS = JobKind(
    ASSESSMENTS,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=targets_of,
    time_limit_s=25 * 3600,  # the budget's bound (24 h) and the last child's end
    runner="upgradelab.assessment.runner:execute_assessment",
    api_path="/api/assessments/{assessment_id}",
    api_name="assessment",
)
