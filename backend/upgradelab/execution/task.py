"""The one Celery task every kind of job runs as, derived from its JobKind (execution/kinds.py): the
worker registers one per registered kind (job_kinds.py `register_tasks`, at the worker's import of
worker_start.py), named `kind.task_name`, with the kind's soft time limit.

What it does is the same for every kind: a Redis client with timeouts (a Redis that stops answering,
not only one that refuses, must not hang the lock heartbeat), the kind's runner (its lifecycle:
locks, lease, heartbeat, body, final state; execution/lifecycle.py), and while one of the job's
targets is held by another job (TargetsBusy) a retry every BUSY_RETRY_S seconds: the job stays
queued. A message whose worker died before it claimed the job is redelivered (task_acks_late,
worker.py); a job already claimed is skipped by its runner and ended by the reaper.
"""

from typing import Any

from celery import Task
from redis import Redis

from upgradelab.execution.kinds import JobKind
from upgradelab.execution.locks import TargetsBusy
from upgradelab.settings import get_settings
from upgradelab.streaming.publisher import forget
from upgradelab.worker import celery_app

BUSY_RETRY_S = 2.0

_TASKS: dict[str, Any] = {}  # task name -> the task registered in this process


def job_task(kind: JobKind) -> Any:
    """The Celery task of `kind` (registered with the app under `kind.task_name`; registering it
    again returns the one already registered). Its one argument: the job's id; it returns the job's
    final status, or None when the job was not queued. ValueError (JobKind.load_runner) when the
    kind names no runner."""
    registered = _TASKS.get(kind.task_name)
    if registered is not None:
        return registered
    runner = kind.load_runner()

    @celery_app.task(name=kind.task_name, bind=True, max_retries=None, soft_time_limit=kind.time_limit_s)
    def execute(self: Task, job_id: int) -> str | None:  # type: ignore[type-arg]
        """Execute the job `job_id` of this kind; while a target is busy, retry (it stays queued)."""
        settings = get_settings()
        redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
        try:
            status = runner(job_id, redis, settings)
        except TargetsBusy as busy:
            raise self.retry(countdown=BUSY_RETRY_S, exc=busy) from busy
        finally:
            redis.close()
        return None if status is None else str(status)

    _TASKS[kind.task_name] = execute
    return execute


def send_job(kind: JobKind, job_id: int, queue: str) -> None:
    """Queue job `job_id` of `kind` on Celery queue `queue` (its pool's, pools/routing.py): the message
    names the kind's task; the API calls this once the job's row is committed (a blocking call: from
    async code, through a thread). The job's stream is cleared first (streaming/publisher.py forget: an
    id SQLite reused must not show the deleted job's events)."""
    forget(kind.name, job_id)
    celery_app.send_task(kind.task_name, args=[job_id], queue=queue)
