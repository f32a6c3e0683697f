"""An attribution as the execution layer sees it: its lease kind and JobKind, registered with the
reaper at a worker's start (job_kinds.py, worker_start.py).

An attribution holds no target of its own: each step is an ordinary run that locks its targets and
holds its own lease (attribution/steps.py). If the attribution's worker dies, the reaper ends the
attribution (failed, "worker lost") and, through the run kind, the step run that was going.
"""

from sqlalchemy import update

from upgradelab.attribution.models import Attribution
from upgradelab.db import sync_session, utcnow
from upgradelab.execution.kinds import Ending, JobKind
from upgradelab.execution.leases import job_lease
from upgradelab.execution.status import JobStatus
from upgradelab.runs.models import Run
from upgradelab.targets.models import Target

ATTRIBUTIONS = job_lease("attribution", Attribution)


def _no_targets(_: int) -> list[Target]:
    return []


def _on_end(attribution_id: int, ending: Ending) -> None:
    """A step run created but not yet claimed would stay queued for ever (no message was sent for it:
    the attribution executes its steps itself): cancel it with the attribution."""
    with sync_session() as session:
        row = session.get(Attribution, attribution_id)
        ids = [step.run_id for step in (row.steps if row else []) if step.run_id]
        if ids:
            session.execute(
                update(Run)
                .where(Run.id.in_(ids), Run.status == JobStatus.queued)
                .values(status=JobStatus.cancelled, finished_at=utcnow(), error="its attribution ended")
            )
            session.commit()


ATTRIBUTION_JOBS = JobKind(
    ATTRIBUTIONS,
    succeeded=JobStatus.succeeded,
    failed=JobStatus.failed,
    targets_of=_no_targets,
    on_end=_on_end,
    task="upgradelab.attribution.execute",
    time_limit_s=12 * 3600,
    runner="upgradelab.attribution.runner:execute_attribution",
    api_path="/api/attributions/{attribution_id}",
    api_name="attribution",
)
