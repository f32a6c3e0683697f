"""The Celery tasks of captures and their checks (a dead worker's are reaped by execution/reaper.py's
thread)."""

from celery import Task
from redis import Redis

from upgradelab.captures.check_runner import execute_check
from upgradelab.captures.runner import execute_capture
from upgradelab.execution.locks import TargetsBusy
from upgradelab.settings import get_settings
from upgradelab.worker import EXECUTE_CAPTURE, EXECUTE_CAPTURE_CHECK, celery_app

BUSY_RETRY_S = 2.0


@celery_app.task(name=EXECUTE_CAPTURE, bind=True, max_retries=None, soft_time_limit=3600)
def execute(self: Task, capture_id: int) -> str | None:  # type: ignore[type-arg]
    """Execute capture `capture_id`; while its target is busy, retry every 2 s (it stays queued)."""
    settings = get_settings()
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        status = execute_capture(capture_id, redis, settings)
    except TargetsBusy as busy:
        raise self.retry(countdown=BUSY_RETRY_S, exc=busy) from busy
    finally:
        redis.close()
    return None if status is None else str(status)


@celery_app.task(name=EXECUTE_CAPTURE_CHECK, bind=True, max_retries=None, soft_time_limit=3600)
def check(self: Task, check_id: int) -> str | None:  # type: ignore[type-arg]
    """Execute capture check `check_id`; while its target is busy, retry every 2 s (it stays queued)."""
    settings = get_settings()
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        status = execute_check(check_id, redis, settings)
    except TargetsBusy as busy:
        raise self.retry(countdown=BUSY_RETRY_S, exc=busy) from busy
    finally:
        redis.close()
    return None if status is None else str(status)
