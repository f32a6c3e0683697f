"""Celery task of the replay domain, and the replay reaper thread of every worker (replay/leases.py)."""

import threading
from typing import Any

from celery import Task
from celery.signals import worker_ready, worker_shutdown
from redis import Redis

from upgradelab.replay.leases import start_reaper_thread
from upgradelab.replay.runner import TargetsBusy, execute_replay
from upgradelab.settings import get_settings
from upgradelab.worker import EXECUTE_REPLAY, celery_app

BUSY_RETRY_S = 2.0
_reaper: list[threading.Event] = []


@celery_app.task(name=EXECUTE_REPLAY, bind=True, max_retries=None, soft_time_limit=6 * 3600)
def execute(self: Task, replay_id: int) -> str | None:  # type: ignore[type-arg]
    """Execute replay run `replay_id`; while a target is busy, retry every 2 s (it stays queued)."""
    settings = get_settings()
    # Timeouts: a Redis that stops answering must not hang the lock heartbeat.
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        return execute_replay(replay_id, redis, settings)
    except TargetsBusy as busy:
        raise self.retry(countdown=BUSY_RETRY_S, exc=busy) from busy
    finally:
        redis.close()


@worker_ready.connect
def _start_reaper(**_: Any) -> None:
    """In the worker's main process: end at once what a dead worker left, then every few seconds."""
    _reaper.append(start_reaper_thread())


@worker_shutdown.connect
def _stop_reaper(**_: Any) -> None:
    for stop in _reaper:
        stop.set()
