"""Celery task of the replay domain (a dead worker's replays are reaped by execution/reaper.py's thread)."""

from celery import Task
from redis import Redis

from upgradelab.execution.locks import TargetsBusy
from upgradelab.replay.runner import execute_replay
from upgradelab.settings import get_settings
from upgradelab.worker import EXECUTE_REPLAY, celery_app

BUSY_RETRY_S = 2.0


@celery_app.task(name=EXECUTE_REPLAY, bind=True, max_retries=None, soft_time_limit=6 * 3600)
def execute(self: Task, replay_id: int) -> str | None:  # type: ignore[type-arg]
    """Execute replay run `replay_id`; while a target is busy, retry every 2 s (it stays queued)."""
    settings = get_settings()
    # Timeouts: a Redis that stops answering must not hang the lock heartbeat.
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        status = execute_replay(replay_id, redis, settings)
    except TargetsBusy as busy:
        raise self.retry(countdown=BUSY_RETRY_S, exc=busy) from busy
    finally:
        redis.close()
    return None if status is None else str(status)
