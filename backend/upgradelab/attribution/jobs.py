"""An attribution as the execution layer sees it: its lease kind and JobKind, registered with the
reaper at a worker's start (job_kinds.py, worker_start.py).

An attribution holds no target of its own: each step is an ordinary run that locks its targets and
holds its own lease (attribution/steps.py). If the attribution's worker dies, the reaper ends the
attribution (failed, "worker lost") and, through the run kind, the step run that was going.
"""

from typing import Any

from sqlalchemy import update

from upgradelab.attribution.models import Attribution
from upgradelab.db import sync_session, utcnow
from upgradelab.execution.kinds import Ending, JobKind
from upgradelab.execution.leases import LeaseKind
from upgradelab.execution.status import FINAL_STATUSES, JobStatus
from upgradelab.experiments.models import Run
from upgradelab.streaming.publisher import publish_status
from upgradelab.targets.models import Target

ATTRIBUTIONS = LeaseKind(
    "attribution",
    Attribution,
    JobStatus.queued,
    JobStatus.running,
    (JobStatus.running,),
    tuple(FINAL_STATUSES),
    "started_at",
)


def _no_targets(_: int) -> list[Target]:
    return []


def _final_fields(ending: Ending) -> dict[str, Any]:
    return {
        "status": JobStatus(ending.status),
        "error": ending.error,
        "finished_at": utcnow(),
        **ending.fields,
    }


def _on_end(attribution_id: int, ending: Ending) -> None:
    """A step run created but not yet claimed would stay queued for ever (no message was sent for it:
    the attribution executes its steps itself): cancel it with the attribution."""
    with sync_session() as session:
        row = session.get(Attribution, attribution_id)
        ids = [step["run_id"] for step in (row.steps if row else []) if step.get("run_id")]
        if ids:
            session.execute(
                update(Run)
                .where(Run.id.in_(ids), Run.status == JobStatus.queued)
                .values(status=JobStatus.cancelled, finished_at=utcnow(), error="its attribution ended")
            )
            session.commit()


def _published(attribution_id: int, fields: dict[str, Any]) -> None:
    publish_status(attribution_id, fields, final=True, kind="attribution")


ATTRIBUTION_JOBS = JobKind(
    ATTRIBUTIONS,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=_no_targets,
    final_fields=_final_fields,
    on_end=_on_end,
    published=_published,
)
