"""A fix search as the execution layer sees it: its lease kind and JobKind (execution/kinds.py),
registered with the reaper at a worker's start (job_kinds.py, worker_start.py).

It holds the targets of its two variants (the replay's baseline and the variant) as a replay does:
their locks while it runs, every instance of them stopped when it does not succeed (`sweep`: a cancel
may stop servers still starting), and the reaper's `worker lost` if its worker dies.
"""

from typing import Any

from sqlalchemy import select

from upgradelab.db import sync_session, utcnow
from upgradelab.execution.kinds import Ending, JobKind
from upgradelab.execution.leases import LeaseKind
from upgradelab.execution.status import FINAL_STATUSES, JobStatus
from upgradelab.fixsearch.models import FixSearch
from upgradelab.streaming.publisher import publish_status
from upgradelab.targets.models import Target

FIX_SEARCHES = LeaseKind(
    "fixsearch",
    FixSearch,
    JobStatus.queued,
    JobStatus.running,
    (JobStatus.running,),
    tuple(FINAL_STATUSES),
    "started_at",
)


def targets_of(search_id: int) -> list[Target]:
    """The targets its two variants name (fix_search.variants), detached from their session."""
    with sync_session() as session:
        row = session.get(FixSearch, search_id)
        names = {v.target for v in (row.variants if row else [])}
        targets = list(session.scalars(select(Target).where(Target.name.in_(names))))
        for target in targets:
            session.expunge(target)
    return targets


def _final_fields(ending: Ending) -> dict[str, Any]:
    return {
        "status": JobStatus(ending.status),
        "error": ending.error,
        "finished_at": utcnow(),
        **ending.fields,
    }


def _published(search_id: int, fields: dict[str, Any]) -> None:
    publish_status(search_id, fields, final=True, kind="fixsearch")


FIX_SEARCH_JOBS = JobKind(
    FIX_SEARCHES,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=targets_of,
    final_fields=_final_fields,
    published=_published,
    sweep=True,
)
