"""The toy kind as the execution layer sees it (the recipe's step 2): its LeaseKind and JobKind,
whose runner, task, API path and routes' module every derived piece reads (execution/task.py,
execution/cancel.py, api/job_routes.py, api/streaming.py, api/pools.py, main.py)."""

from tests.recipe.toy.models import Toy
from upgradelab.execution.kinds import JobKind
from upgradelab.execution.leases import job_lease
from upgradelab.execution.status import JobStatus
from upgradelab.targets.models import Target

TOYS = job_lease("toy", Toy)


def _no_targets(_: int) -> list[Target]:
    return []


TOY_JOBS = JobKind(
    TOYS,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=_no_targets,
    time_limit_s=600,
    runner="tests.recipe.toy.runner:execute_toy",
    api_path="/api/toys/{toy_id}",
    api_name="toy",
    api_module="tests.recipe.toy.api",
)
