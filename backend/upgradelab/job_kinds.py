"""Every kind of job the lab executes, in one list: what the reaper ends (registered at a worker's
start, worker_start.py), the worker's Celery tasks (one generic task per kind, execution/task.py) and
what the pools page lists and looks up (api/pools.py). A new kind adds its JobKind here: one line
(docs/architecture.md, "How to add a job kind")."""

from upgradelab.assessment.jobs import ASSESSMENT_JOBS
from upgradelab.attribution.jobs import ATTRIBUTION_JOBS
from upgradelab.captures.jobs import CAPTURE_JOBS, CHECK_JOBS
from upgradelab.concurrent_replay.jobs import CONCURRENT_REPLAY_JOBS
from upgradelab.execution import reaper
from upgradelab.execution.kinds import JobKind
from upgradelab.execution.task import job_task
from upgradelab.fixsearch.jobs import FIX_SEARCH_JOBS
from upgradelab.replay.jobs import REPLAY_JOBS
from upgradelab.runs.executor.jobs import RUN_JOBS

JOB_KINDS: list[JobKind] = [
    RUN_JOBS,
    REPLAY_JOBS,
    ATTRIBUTION_JOBS,
    CAPTURE_JOBS,
    CHECK_JOBS,
    FIX_SEARCH_JOBS,
    CONCURRENT_REPLAY_JOBS,
    ASSESSMENT_JOBS,
]


def register(kind: JobKind) -> None:
    """Add `kind` to JOB_KINDS in this process (or replace the kind of its name), before the worker
    registers its tasks and the API builds its app (main.py create_app): how a test registers a kind
    of its own (tests/recipe/); a product kind is a line of JOB_KINDS."""
    JOB_KINDS[:] = [one for one in JOB_KINDS if one.name != kind.name] + [kind]


def register_with_reaper() -> None:
    """Every kind registered with the reaper of this process (a worker's, the API's); idempotent."""
    for kind in JOB_KINDS:
        reaper.register(kind)


def register_tasks() -> None:
    """The Celery task of every kind registered with the app (execution/task.py; idempotent): the
    worker's import of worker_start.py calls it, so a worker consumes every kind's messages."""
    for kind in JOB_KINDS:
        job_task(kind)


def kind_named(name: str) -> JobKind | None:
    """The registered kind named `name` ("run", "capture_check"), None when there is none."""
    return next((kind for kind in JOB_KINDS if kind.name == name), None)
