"""Celery task: remove a deleted dataset's copies that replays loaded on the targets (dataset_copies.py)."""

from celery import Task
from redis import Redis

from upgradelab.replay.dataset_copies import remove_copies
from upgradelab.settings import get_settings
from upgradelab.worker import REMOVE_DATASET_COPIES, celery_app

BUSY_RETRY_S = 10.0


@celery_app.task(name=REMOVE_DATASET_COPIES, bind=True, max_retries=None, soft_time_limit=3600)
def remove(self: Task, dataset_id: int) -> list[str]:  # type: ignore[type-arg]
    """Remove dataset `dataset_id`'s copies from its free targets; while one is busy (a run or a
    replay holds its lock), retry every 10 s for the rest. Returns the targets left (none)."""
    settings = get_settings()
    # Timeouts: a Redis that stops answering must not hang the lock heartbeat.
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        busy = remove_copies(dataset_id, redis, settings)
    finally:
        redis.close()
    if busy:
        raise self.retry(countdown=BUSY_RETRY_S)
    return busy
