"""Replay leases and their reaper: a replay being executed is held by one worker, which proves it is
alive, as runs are (runs/leases.py, runs/reaper.py; the same settings).

The lease lives in `replay_run.lease_owner` / `lease_expires_at`. `claim` takes it with the step
queued -> running in one conditional UPDATE; a `Heartbeat` thread renews it every `run_heartbeat_s`
seconds for `run_lease_ttl_s` seconds together with the target locks; `finish` writes the final
status only while the lease is still the worker's. A replay whose lease expired lost its worker
(killed, machine rebooted): `reap_expired` (a thread in every worker, `start_reaper_thread`) takes
it over, stops every instance of its targets while their locks still keep others off, frees the
locks and ends it failed ("worker lost").

Replays' locks carry run id 0 (runs/locks.py `run:0:`): the reaper frees the `run:0:` locks of the
dead replay's targets. No other replay can hold them meanwhile (the dead one's locks keep it out for
`target_lock_ttl_s`, longer than lease TTL + reaper period).
"""

import logging
import threading
from collections.abc import Callable
from datetime import timedelta
from types import TracebackType
from typing import Any

from redis import Redis, RedisError
from sqlalchemy import and_, or_, select, update

from upgradelab.db import sync_session, utcnow
from upgradelab.replay.models import ReplayRun
from upgradelab.runs.leases import new_owner
from upgradelab.runs.locks import free_run_locks
from upgradelab.settings import Settings, get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.preflight import lock_names
from upgradelab.targets.provisioners import provisioner_for

log = logging.getLogger(__name__)

WORKER_LOST = "worker lost"
REPLAY_LOCK_RUN_ID = 0  # the run id in the lock values replays take (runs/locks.py)
_REAPING_TTL_S = 300.0  # how long a reaper holds a replay it is ending (stopping servers takes a while)


def claim(replay_id: int, owner: str, ttl_s: float) -> bool:
    """queued -> running with a lease of ttl_s seconds for `owner`; False when no longer queued."""
    with sync_session() as session:
        done = session.execute(
            update(ReplayRun)
            .where(ReplayRun.id == replay_id, ReplayRun.status == "queued")
            .values(status="running", lease_owner=owner, lease_expires_at=utcnow() + timedelta(seconds=ttl_s))
        )
        session.commit()
    return bool(done.rowcount)  # type: ignore[attr-defined]


def renew(replay_id: int, owner: str, ttl_s: float) -> bool:
    """Push the lease's expiry to now + ttl_s; False when `owner` no longer holds it."""
    with sync_session() as session:
        done = session.execute(
            update(ReplayRun)
            .where(ReplayRun.id == replay_id, ReplayRun.lease_owner == owner, ReplayRun.status == "running")
            .values(lease_expires_at=utcnow() + timedelta(seconds=ttl_s))
        )
        session.commit()
    return bool(done.rowcount)  # type: ignore[attr-defined]


def finish(replay_id: int, owner: str, **fields: Any) -> bool:
    """Write the final fields (status, error, ended_at, ...) and drop the lease, only while `owner`
    holds it; False when the reaper ended the replay first."""
    with sync_session() as session:
        done = session.execute(
            update(ReplayRun)
            .where(ReplayRun.id == replay_id, ReplayRun.lease_owner == owner, ReplayRun.status == "running")
            .values(lease_owner=None, lease_expires_at=None, **fields)
        )
        session.commit()
    return bool(done.rowcount)  # type: ignore[attr-defined]


def take_over_expired(owner: str, ttl_s: float) -> list[int]:
    """Give `owner` the lease of every running replay whose lease expired or that has none; the ids
    taken. A conditional UPDATE per replay, so two reapers never take the same one."""
    now = utcnow()
    expired = and_(
        ReplayRun.status == "running",
        or_(ReplayRun.lease_expires_at.is_(None), ReplayRun.lease_expires_at < now),
    )
    taken = []
    with sync_session() as session:
        for candidate in session.scalars(select(ReplayRun.id).where(expired)).all():
            done = session.execute(
                update(ReplayRun)
                .where(ReplayRun.id == candidate, expired)
                .values(lease_owner=owner, lease_expires_at=now + timedelta(seconds=ttl_s))
            )
            session.commit()
            if done.rowcount:  # type: ignore[attr-defined]
                taken.append(candidate)
    return taken


class Heartbeat:
    """A daemon thread (context manager): every `interval_s` seconds renew_lease(), then renew_locks().
    A renewal that raises (database busy, Redis down) is logged and tried at the next beat (the TTLs
    cover a few); renew_lease() returning False marks the lease lost and ends the beats."""

    def __init__(
        self, renew_lease: Callable[[], bool], renew_locks: Callable[[], None], interval_s: float, name: str
    ) -> None:
        self._renew_lease, self._renew_locks = renew_lease, renew_locks
        self._interval_s = interval_s
        self._stop = threading.Event()
        self._lost = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=name, daemon=True)

    @property
    def lost(self) -> bool:
        return self._lost.is_set()

    def _beat(self) -> None:
        while not self._stop.wait(self._interval_s):
            try:
                if not self._renew_lease():
                    log.warning("%s: lease lost", self._thread.name)
                    self._lost.set()
                    return
            except Exception:
                log.exception("%s: renewing the lease", self._thread.name)
            try:
                self._renew_locks()
            except Exception:
                log.warning("%s: renewing the locks failed; retrying", self._thread.name, exc_info=True)

    def __enter__(self) -> "Heartbeat":
        self._thread.start()
        return self

    def __exit__(
        self, _type: type[BaseException] | None, _value: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()


def stop_targets(replay_id: int, targets: list[Target], settings: Settings) -> None:
    """Every instance of these targets stopped (stop_all: pid files, docker labels); errors logged."""
    for target in targets:
        try:
            provisioner_for(target, settings).stop_all()
        except Exception:  # a server that cannot be stopped must not keep the replay unfinished
            log.exception("replay %s: stopping the servers of %s", replay_id, target.name)


def reap_expired(settings: Settings | None = None) -> list[int]:
    """End every running replay whose lease expired as failed ("worker lost"); the ids ended."""
    settings = settings or get_settings()
    owner = "reaper:" + new_owner()
    ended = []
    for replay_id in take_over_expired(owner, _REAPING_TTL_S):
        log.warning("replay %s: lease expired (worker lost); ending it", replay_id)
        with sync_session() as session:
            replay = session.get(ReplayRun, replay_id)
            names = {str(v["target"]) for v in (replay.variants if replay else [])}
            targets = list(session.scalars(select(Target).where(Target.name.in_(names))))
            for target in targets:
                session.expunge(target)
        stop_targets(replay_id, targets, settings)
        _free_locks(replay_id, lock_names(targets), settings)
        finish(replay_id, owner, status="failed", error=WORKER_LOST, ended_at=utcnow(), progress=None)
        ended.append(replay_id)
    return ended


def _free_locks(replay_id: int, names: list[str], settings: Settings) -> None:
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        free_run_locks(redis, REPLAY_LOCK_RUN_ID, names)
    except RedisError:
        log.exception("replay %s: freeing its target locks; they expire by themselves", replay_id)
    finally:
        redis.close()


def start_reaper_thread(settings: Settings | None = None) -> threading.Event:
    """Reap now, then every `reaper_interval_s` seconds, in a daemon thread; set the event to stop."""
    settings = settings or get_settings()
    stop = threading.Event()

    def loop() -> None:
        while True:
            try:
                reap_expired(settings)
            except Exception:  # the database may be briefly unavailable: try again next period
                log.exception("reaping replays with expired leases")
            if stop.wait(settings.reaper_interval_s):
                return

    threading.Thread(target=loop, name="replay-reaper", daemon=True).start()
    return stop
