"""A fix search as the execution layer sees it: its lease kind and JobKind (execution/kinds.py),
registered with the reaper at a worker's start (job_kinds.py, worker_start.py).

It holds the targets of its two variants (the replay's baseline and the variant) as a replay does:
their locks while it runs, every instance of them stopped when it does not succeed (`sweep`: a cancel
may stop servers still starting), and the reaper's `worker lost` if its worker dies.
"""

from upgradelab.execution.kinds import JobKind, job_targets
from upgradelab.execution.leases import job_lease
from upgradelab.execution.status import JobStatus
from upgradelab.fixsearch.models import FixSearch
from upgradelab.targets.models import Target

FIX_SEARCHES = job_lease("fixsearch", FixSearch)


def targets_of(search_id: int) -> list[Target]:
    """The targets its two variants name (fix_search.variants), detached from their session."""
    return job_targets(FixSearch, search_id, lambda row: [v.target for v in row.variants])


FIX_SEARCH_JOBS = JobKind(
    FIX_SEARCHES,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=targets_of,
    sweep=True,
    task="upgradelab.fixsearch.execute",
    time_limit_s=12 * 3600,
    runner="upgradelab.fixsearch.runner:execute_fix_search",
    label="fix search",
    api_path="/api/fixsearches/{search_id}",
    api_name="fix_search",
)
