"""Celery task of the runs domain (the worker's start-up, its reaper thread and signal handlers:
worker_start.py)."""

from celery import Task
from redis import Redis

from upgradelab.execution.locks import TargetsBusy
from upgradelab.run_executor.runner import execute_run
from upgradelab.settings import get_settings
from upgradelab.worker import EXECUTE_RUN, celery_app

BUSY_RETRY_S = 2.0


@celery_app.task(name=EXECUTE_RUN, bind=True, max_retries=None, soft_time_limit=6 * 3600)
def execute(self: Task, run_id: int) -> str | None:  # type: ignore[type-arg]
    """Execute run `run_id`; while one of its targets is busy, retry every 2 s (the run stays queued)."""
    settings = get_settings()
    # Timeouts: a Redis that stops answering (not only one that refuses) must not hang the heartbeat.
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        status = execute_run(run_id, redis, settings)
    except TargetsBusy as busy:
        raise self.retry(countdown=BUSY_RETRY_S, exc=busy) from busy
    finally:
        redis.close()
    return None if status is None else str(status)
