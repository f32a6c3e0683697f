"""The reaper: ends runs and replays whose worker is gone, so none stays started for good.

A started run (provisioning, running) or replay (running) whose lease (runs/leases.py) expired, or
that has none, lost its worker (killed, machine rebooted). The reaper takes its lease over (a
conditional UPDATE: two reapers never end the same row) and stops the servers of its targets (found
by the pid files and docker labels the provisioners keep), then does what its kind needs:
- a run: its variants finished, the summary of the iterations it kept stored, the final status
  (`failed`, error "worker lost") written and published to the run's stream, its target locks freed;
- a replay: its locks (`replay:<id>:`) freed, then ended `failed` ("worker lost"), its progress
  cleared.

Where it runs: a daemon thread in every Celery worker's main process (`start_reaper_thread`,
started from the `worker_ready` signal in runs/tasks.py): once at start-up, so a new worker ends
what a dead one left, then every `reaper_interval_s` seconds. With the 15 s lease and a 5 s
period a dead worker's run is final within ~20 s while any worker is up. The API needs no reaper:
cancelling a run without a live lease ends it at once through `end_abandoned` (runs/service.py).
"""

import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from redis import Redis, RedisError
from sqlalchemy import select
from tenacity import retry, retry_if_exception_type, stop_after_delay, wait_exponential

from upgradelab.db import sync_session, utcnow
from upgradelab.experiments.models import Run, RunStatus
from upgradelab.replay.models import ReplayRun
from upgradelab.results.store.summary import store_summary
from upgradelab.runs import leases, records
from upgradelab.runs.leases import REPLAYS, RUNS, LeaseKind
from upgradelab.runs.locks import free_run_locks
from upgradelab.settings import Settings, get_settings
from upgradelab.streaming.publisher import publish_status
from upgradelab.targets.lock_names import lock_names
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import Provisioner, provisioner_for

log = logging.getLogger(__name__)

WORKER_LOST = "worker lost"
# How long a reaper holds a run it is ending (stopping servers can take a while); a reaper that
# dies meanwhile leaves the run to the next one after this.
_REAPING_TTL_S = 300.0

# A reaper pass holds the database pool's and the driver's locks while it queries; a pool process
# forked in the middle of one (Celery replaces a killed pool process at once) would inherit them held
# and hang on its first query (worker_process_init disposes of the pool). Forks wait for the pass.
_PASS = threading.RLock()  # reentrant: a pass that forks itself (preexec_fn) passes its own guard
os.register_at_fork(before=_PASS.acquire, after_in_parent=_PASS.release, after_in_child=_PASS.release)


def reap_expired(settings: Settings | None = None, kind: LeaseKind = RUNS) -> list[int]:
    """End every started run (or replay) whose lease expired as failed ("worker lost"); the ids ended."""
    settings = settings or get_settings()
    owner = "reaper:" + leases.new_owner()
    ended = []
    for row_id in leases.take_over_expired(None, owner, _REAPING_TTL_S, kind):
        log.warning("%s %s: lease expired (worker lost); ending it", kind.name, row_id)
        if kind is REPLAYS:
            _end_replay(row_id, owner, settings)
        else:
            _end(row_id, owner, RunStatus.failed, WORKER_LOST, settings)
        ended.append(row_id)
    return ended


def end_abandoned(
    run_id: int, status: RunStatus, error: str | None, settings: Settings | None = None
) -> bool:
    """End run `run_id` with `status` if it is started and has no live lease (its worker is gone);
    False, leaving it alone, when a worker still holds it or it is not started."""
    settings = settings or get_settings()
    owner = "reaper:" + leases.new_owner()
    if not leases.take_over_expired(run_id, owner, _REAPING_TTL_S):
        return False
    _end(run_id, owner, status, error, settings)
    return True


def end_abandoned_replay(replay_id: int, status: str, settings: Settings | None = None) -> bool:
    """end_abandoned for a replay: end it with `status` (error None) if it is running without a live
    lease; False, leaving it alone, when a worker still holds it or it is not running."""
    settings = settings or get_settings()
    owner = "reaper:" + leases.new_owner()
    if not leases.take_over_expired(replay_id, owner, _REAPING_TTL_S, REPLAYS):
        return False
    _end_replay(replay_id, owner, settings, status, None)
    return True


def _end(run_id: int, owner: str, status: RunStatus, error: str | None, settings: Settings) -> None:
    targets = _targets_of(run_id)
    stop_targets(f"run {run_id}", targets, settings)
    records.finish_variants(run_id, False, error or f"the run was {status}")
    store_summary(run_id)  # the iterations it kept, before viewers see the final status
    fields: dict[str, Any] = {
        "status": status,
        "error": error,
        "finished_at": utcnow(),
        "current_variant": None,
    }
    if leases.finish(run_id, owner, RUNS, **fields):
        publish_status(run_id, fields)
    _free_locks(f"run {run_id}", run_id, RUNS, lock_names(targets), settings)


def _end_replay(
    replay_id: int, owner: str, settings: Settings, status: str = "failed", error: str | None = WORKER_LOST
) -> None:
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        names = {str(v["target"]) for v in (replay.variants if replay else [])}
        targets = list(session.scalars(select(Target).where(Target.name.in_(names))))
        for target in targets:
            session.expunge(target)
    stop_targets(f"replay {replay_id}", targets, settings)
    _free_locks(f"replay {replay_id}", replay_id, REPLAYS, lock_names(targets), settings)
    ended = {"status": status, "error": error, "ended_at": utcnow(), "progress": None}
    leases.finish(replay_id, owner, REPLAYS, **ended)


def stop_targets(what: str, targets: list[Target], settings: Settings) -> None:
    """Every instance of these targets stopped (stop_all: pid files, docker labels); a failure is
    logged with `what` ("run 3", "replay 5") and the next target still stopped."""
    for target in targets:
        try:
            _stop_all(provisioner_for(target, settings))
        except Exception:  # a server that cannot be stopped must not keep the row unfinished
            log.exception("%s: stopping the servers of %s", what, target.name)


def _stop_all(provisioner: Provisioner) -> None:
    # The run-loop's provisioners stop every instance of a target (`stop_all`: pid files, docker
    # labels); until then one server per target, which `stop` finds by its pid file or name.
    stop_all: Callable[[], None] = getattr(provisioner, "stop_all", provisioner.stop)
    stop_all()


def _targets_of(run_id: int) -> list[Target]:
    with sync_session() as session:
        names = session.scalar(select(Run.targets).where(Run.id == run_id)) or ""
        wanted = [name for name in names.split(",") if name]
        return list(session.scalars(select(Target).where(Target.name.in_(wanted))))


def _free_locks(what: str, row_id: int, kind: LeaseKind, targets: list[str], settings: Settings) -> None:
    @retry(
        retry=retry_if_exception_type(RedisError),
        stop=stop_after_delay(settings.redis_outage_s),
        wait=wait_exponential(max=2),
        reraise=True,
    )
    def attempt() -> int:
        redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
        try:
            return free_run_locks(redis, row_id, targets, kind.name)
        finally:
            redis.close()

    try:
        attempt()
    except RedisError:
        log.exception("%s: freeing its target locks; they expire by themselves", what)


def start_reaper_thread(settings: Settings | None = None) -> threading.Event:
    """Reap runs and replays now and then every `reaper_interval_s` seconds in a daemon thread; set
    the returned event to stop it."""
    settings = settings or get_settings()
    stop = threading.Event()

    def loop() -> None:
        while True:
            for kind in (RUNS, REPLAYS):
                try:
                    with _PASS:
                        reap_expired(settings, kind)
                except Exception:  # the database may be briefly unavailable: try again next period
                    log.exception("reaping %ss with expired leases", kind.name)
            if stop.wait(settings.reaper_interval_s):
                return

    threading.Thread(target=loop, name="run-reaper", daemon=True).start()
    return stop
