"""The Celery app (Redis broker). Start a worker with `celery -A upgradelab.worker worker`.

Nothing is read at import: the broker and the default queue come from the settings when the app's
configuration is first needed (`add_defaults` with a function: a worker's start, the API's first
send_task), and the worker's start-up (probe hooks, job kinds, the reaper thread, signal handlers)
is one function, worker_start.py `start_worker`, which Celery's `worker_init` signal calls."""

from typing import Any

from celery import Celery

from upgradelab.settings import get_settings


def queue_of(pool: str) -> str:
    """The Celery queue of worker pool `pool`: its name; the default pool "local" keeps the queue every
    worker used before pools existed ("upgradelab"), so messages queued before an upgrade and workers
    started with `-Q upgradelab` go on working."""
    return "upgradelab" if pool == "local" else pool


def _from_settings() -> dict[str, Any]:
    """The configuration the settings give, read when the app first needs its configuration."""
    settings = get_settings()
    return {
        "broker_url": settings.redis_url,
        # A worker started without -Q consumes its pool's queue (UPGRADELAB_POOL); the API names the
        # queue of each job it sends (pools/routing.py).
        "task_default_queue": queue_of(settings.pool),
    }


celery_app = Celery(
    "upgradelab",
    include=[
        # worker_start registers one task per job kind (job_kinds.py, execution/task.py)
        "upgradelab.worker_start",
        "upgradelab.replay.dataset_copy_tasks",
        "upgradelab.replay.shard_tasks",
        "upgradelab.pools.heartbeat",
    ],
)
celery_app.add_defaults(_from_settings)
celery_app.conf.update(
    task_ignore_result=True,
    # A message whose worker died before it claimed the run is redelivered; a run already claimed is
    # skipped by the runner (not queued) and ended by the reaper (execution/reaper.py) if its worker died.
    task_acks_late=True,
    worker_prefetch_multiplier=1,
    # Every worker also consumes its own queue (`<node>.dq2`): a sharded replay sends each shard to
    # the worker it chose, one shard per host (replay/sharding.py).
    worker_direct=True,
    # Redis outages (issue 10): reconnect for as long as it takes, at start-up too ...
    broker_connection_retry=True,
    broker_connection_retry_on_startup=True,
    broker_connection_max_retries=None,
    # ... and never kill the running run when the connection drops (Celery 6 turns this on by default):
    # the run goes on, its lease lives in the database, its events and locks are retried.
    worker_cancel_long_running_tasks_on_connection_loss=False,
    # Publishing (a queued run, a busy run's retry in 2 s) waits out an outage of ~75 s instead of
    # failing after Celery's default 3 tries, which would leave the run queued with no message.
    task_publish_retry_policy={"max_retries": 40, "interval_start": 0, "interval_step": 1, "interval_max": 2},
    # Longer than the task's soft time limit (6 h): a running run's message is not handed to another
    # worker while its lease is alive (the runner would skip it, but it would hold a pool slot).
    broker_transport_options={"visibility_timeout": 7 * 3600},
)

# the job kinds' tasks are named by their JobKind (execution/kinds.py task_name)
REMOVE_DATASET_COPIES = "upgradelab.datasets.remove_copies"
