"""A worker's start-up, in one function: `start_worker`, called by Celery's `worker_init` signal in the
worker's main process before its pool processes are forked (so they inherit what it set up).

It registers the probe hooks (a run's probe rows are stored with its results, probes/hooks.py) and
every job kind with the reaper (job_kinds.py), and connects the worker's other signal handlers: the
reaper thread started once the worker is ready and stopped at its shutdown, the database connections a
forked pool process must not share, the spare instances a process ending kills. Importing this module
(the app includes it, worker.py) connects `start_worker` and registers every job kind's Celery task
(job_kinds.py register_tasks: the worker must know them before it consumes a message).
"""

import threading
from typing import Any

from celery.signals import (
    worker_init,
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
)

from upgradelab.db import sync_engine
from upgradelab.execution import reaper
from upgradelab.job_kinds import register_tasks, register_with_reaper
from upgradelab.probes.hooks import register as register_probe_hooks
from upgradelab.secret_files import protect_state_dir
from upgradelab.settings import get_settings
from upgradelab.targets.provisioners import spares

_reaper: list[threading.Event] = []


def prepare_process() -> None:
    """What executing a job needs in this process: the probe hooks and every job kind registered with
    the reaper (both idempotent). Also for a test that executes a job in its own process."""
    register_probe_hooks()
    register_with_reaper()


def start_worker(**_: Any) -> None:
    """The worker's start-up (Celery `worker_init`): settings read now, the process prepared, the
    other signal handlers connected."""
    settings = get_settings()  # a bad setting fails the worker's start, not its first job
    protect_state_dir(settings)  # nothing in it readable by another local user (issue 44)
    prepare_process()
    # scipy (~1 CPU-s) once here, where the prefork pool processes inherit it, rather than in each of
    # them at its first interval (results/stats import it lazily, for the API's and CLI's starts)
    import scipy.stats  # noqa: F401

    worker_ready.connect(_start_reaper, weak=False)
    worker_process_init.connect(_forget_parent_connections, weak=False)
    worker_shutdown.connect(_stop_reaper, weak=False)
    worker_process_shutdown.connect(_discard_spares, weak=False)


def _start_reaper(**_: Any) -> None:
    """In the worker's main process: end at once what a dead worker left, then every few seconds."""
    _reaper.append(reaper.start_reaper_thread())


def _forget_parent_connections(**_: Any) -> None:
    """In each pool process: the reaper thread of the main process may have opened database
    connections before this process was forked; never use them here (SQLAlchemy's advice for
    forks: dispose without closing the parent's connections)."""
    sync_engine().dispose(close=False)


def _stop_reaper(**_: Any) -> None:
    for stop in _reaper:
        stop.set()
    spares.discard_all()  # the solo pool runs tasks in this process


def _discard_spares(**_: Any) -> None:
    """A pool process ending kills its spare instances (targets/provisioners/spares.py)."""
    spares.discard_all()


register_tasks()
worker_init.connect(start_worker, weak=False)
