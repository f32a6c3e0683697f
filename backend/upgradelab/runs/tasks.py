"""Celery tasks of the runs domain, and the reaper thread of every worker (execution/reaper.py: every
kind registered, runs and replays; the worker imports runs/tasks.py and replay/tasks.py, which
register theirs through run_executor/jobs.py and replay/jobs.py, before it is ready)."""

import threading
from typing import Any

from celery import Task
from celery.signals import worker_process_init, worker_process_shutdown, worker_ready, worker_shutdown
from redis import Redis

from upgradelab.db import sync_engine
from upgradelab.execution.locks import TargetsBusy
from upgradelab.execution.reaper import start_reaper_thread
from upgradelab.probes.hooks import register as register_probe_hooks
from upgradelab.run_executor.runner import execute_run
from upgradelab.settings import get_settings
from upgradelab.targets.provisioners import spares
from upgradelab.worker import EXECUTE_RUN, celery_app

BUSY_RETRY_S = 2.0
register_probe_hooks()  # a run's probe rows and columns are stored with its results (probes/hooks.py)
_reaper: list[threading.Event] = []


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


@worker_ready.connect
def _start_reaper(**_: Any) -> None:
    """In the worker's main process: end at once what a dead worker left, then every few seconds."""
    _reaper.append(start_reaper_thread())


@worker_process_init.connect
def _forget_parent_connections(**_: Any) -> None:
    """In each pool process: the reaper thread of the main process may have opened database
    connections before this process was forked; never use them here (SQLAlchemy's advice for
    forks: dispose without closing the parent's connections)."""
    sync_engine().dispose(close=False)


@worker_shutdown.connect
def _stop_reaper(**_: Any) -> None:
    for stop in _reaper:
        stop.set()
    spares.discard_all()  # the solo pool runs tasks in this process


@worker_process_shutdown.connect
def _discard_spares(**_: Any) -> None:
    """A pool process ending kills its spare instances (targets/provisioners/spares.py)."""
    spares.discard_all()
