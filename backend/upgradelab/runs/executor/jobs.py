"""A run as the execution layer sees it: its lease kind and its JobKind (execution/kinds.py),
registered with the reaper at a worker's start (job_kinds.py, worker_start.py).

A run ends with its unfinished variants finished and the summary of the iterations it kept stored
(results/summary.py, before viewers see the final status), then its final status published to its
stream; the same hook serves a run the reaper ends (worker lost) and one its runner ends.
"""

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select

from upgradelab.db import sync_session, utcnow
from upgradelab.execution.kinds import Ending, JobKind
from upgradelab.execution.leases import LeaseKind
from upgradelab.execution.status import FINAL_STATUSES, JobStatus
from upgradelab.results.store.summary import store_summary
from upgradelab.runs.executor import state
from upgradelab.runs.models import Run
from upgradelab.targets.models import Target

# A run between claim and final status; only these hold (or have lost) a lease.
STARTED = (JobStatus.provisioning, JobStatus.running)

RUNS = LeaseKind(
    "run", Run, JobStatus.queued, JobStatus.provisioning, STARTED, tuple(FINAL_STATUSES), "started_at"
)


def started_runs_on(targets: Iterable[str], except_run: int) -> list[int]:
    """Ids of other runs between claim and final status that use any of `targets`.

    The database's word on who uses a target, asked after the Redis locks are taken: a lock lost in
    a Redis restart without persistence (or expired in a long outage) must not let a second run onto
    a target whose run is still going, or not yet reaped.
    """
    names = set(targets)
    with sync_session() as session:
        rows = session.execute(
            select(Run.id, Run.targets).where(Run.status.in_(STARTED), Run.id != except_run)
        )
        return [run_id for run_id, used in rows if names & set(filter(None, used.split(",")))]


def targets_of(run_id: int) -> list[Target]:
    """The run's targets (run.targets, `,a,b,`), read from the database."""
    with sync_session() as session:
        names = session.scalar(select(Run.targets).where(Run.id == run_id)) or ""
        wanted = [name for name in names.split(",") if name]
        return list(session.scalars(select(Target).where(Target.name.in_(wanted))))


def _on_end(run_id: int, ending: Ending) -> None:
    if ending.reason is not None:
        reason = ending.reason
    elif ending.status == JobStatus.cancelled:
        reason = "the run was cancelled"
    else:
        reason = f"the run failed: {ending.error}"
    state.write(run_id, state.Change().finish_variants(ending.completed, reason))
    store_summary(run_id)  # computed once, before viewers see the final status


def _final_fields(ending: Ending) -> dict[str, Any]:
    return {
        "status": JobStatus(ending.status),
        "error": ending.error,
        "finished_at": utcnow(),
        "current_variant": None,
    }


RUN_JOBS = JobKind(
    RUNS,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=targets_of,
    final_fields=_final_fields,
    on_end=_on_end,
    task="upgradelab.runs.execute",
    runner="upgradelab.runs.executor.runner:execute_run",
    api_path="/api/runs/{run_id}",
    api_name="run",
)
