"""The toy kind's body (the recipe's step 3), through the shared lifecycle: count its steps, each
one's progress written and published, asking its cancel watch "cancelled?" before each step."""

import time

from redis import Redis
from sqlalchemy import update

from tests.recipe.toy.jobs import TOY_JOBS
from tests.recipe.toy.models import Toy
from upgradelab.db import sync_session
from upgradelab.execution.cancel import CancelWatch
from upgradelab.execution.kinds import Ending
from upgradelab.execution.leases import Lease
from upgradelab.execution.lifecycle import execute
from upgradelab.execution.status import JobStatus
from upgradelab.settings import Settings
from upgradelab.streaming.publisher import publish_status


def execute_toy(toy_id: int, redis: Redis, settings: Settings) -> str | None:
    """Run toy `toy_id` to its final status (None when it was not queued)."""
    return execute(TOY_JOBS, toy_id, [], redis, settings, lambda lease: _body(toy_id, lease))


def _body(toy_id: int, lease: Lease) -> Ending:
    with sync_session() as session:
        row = session.get(Toy, toy_id)
        steps, step_s = (row.steps, row.step_s) if row else (0, 0.0)
    with CancelWatch.of(TOY_JOBS, toy_id, poll_s=0.2) as cancel:
        for step in range(1, steps + 1):
            lease.check()
            if cancel.cancelled():
                return Ending(JobStatus.cancelled)
            time.sleep(step_s)
            progress = {"step": step, "steps": steps}
            with sync_session() as session:
                session.execute(update(Toy).where(Toy.id == toy_id).values(progress=progress, done=step))
                session.commit()
            publish_status(toy_id, {"progress": progress}, kind=TOY_JOBS.name)
    return Ending(JobStatus.succeeded, completed=True, fields={"progress": None})
