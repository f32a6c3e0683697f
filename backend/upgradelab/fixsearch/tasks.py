"""The Celery task of fix searches (the worker includes this module; a dead worker's searches are
reaped by execution/reaper.py's thread)."""

from celery import Task
from redis import Redis

from upgradelab.execution.locks import TargetsBusy
from upgradelab.fixsearch.runner import execute_fix_search
from upgradelab.settings import get_settings
from upgradelab.worker import EXECUTE_FIX_SEARCH, celery_app

BUSY_RETRY_S = 2.0


@celery_app.task(name=EXECUTE_FIX_SEARCH, bind=True, max_retries=None, soft_time_limit=12 * 3600)
def execute(self: Task, search_id: int) -> str | None:  # type: ignore[type-arg]
    """Execute fix search `search_id`; while a target is busy, retry every 2 s (it stays queued)."""
    settings = get_settings()
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        return execute_fix_search(search_id, redis, settings)
    except TargetsBusy as busy:
        raise self.retry(countdown=BUSY_RETRY_S, exc=busy) from busy
    finally:
        redis.close()
