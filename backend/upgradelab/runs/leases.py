"""Run leases: a run being executed is held by one worker process, which proves it is alive.

The lease lives in the metadata database (`run.lease_owner`, `run.lease_expires_at`), not in Redis:
a Redis restart or an outage of a minute must not look like a dead worker, and the reaper
(runs/reaper.py) needs nothing but the database to decide. A heartbeat thread in the worker renews
it every `run_heartbeat_s` seconds for `run_lease_ttl_s` seconds (15 s by default), whatever the
run's own thread is doing (dataset preparation, a server start, a long iteration), and renews the
run's target locks (Redis, runs/locks.py) in the same beat. A renewal that finds the lease taken
(the reaper ended the run) marks it lost; the runner stops at its next check (`RunLease.check`).

Used by the runner once per run:

    owner = new_owner()
    if not claim(run_id, owner, ttl_s): ...              # queued -> provisioning, lease taken
    with RunLease(run_id, owner, locks.renew, settings) as lease:
        ... lease.check() between iterations ...
    finish(run_id, owner, status=..., error=...)         # final status, only while still the owner
"""

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterable
from datetime import timedelta
from types import TracebackType
from typing import Any

from sqlalchemy import and_, or_, select, update

from upgradelab.db import sync_session, utcnow
from upgradelab.runs.models import Run, RunStatus
from upgradelab.settings import Settings

log = logging.getLogger(__name__)

# A run between claim and final status; only these hold (or have lost) a lease.
STARTED = (RunStatus.provisioning, RunStatus.running)


class LeaseLost(Exception):
    """This worker no longer holds the run's lease (the reaper or a cancel ended the run)."""


def new_owner() -> str:
    """`<host>:<pid>:<8 hex>`: who holds a lease, readable in the database when debugging."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def claim(run_id: int, owner: str, ttl_s: float) -> bool:
    """queued -> provisioning with started_at and a lease of ttl_s seconds for `owner`, in one
    conditional UPDATE; False when the run is no longer queued (cancelled, or another worker has it)."""
    now = utcnow()
    with sync_session() as session:
        done = session.execute(
            update(Run)
            .where(Run.id == run_id, Run.status == RunStatus.queued)
            .values(
                status=RunStatus.provisioning,
                started_at=now,
                lease_owner=owner,
                lease_expires_at=now + timedelta(seconds=ttl_s),
            )
        )
        session.commit()
    return bool(done.rowcount)  # type: ignore[attr-defined]


def renew(run_id: int, owner: str, ttl_s: float) -> bool:
    """Push the lease's expiry to now + ttl_s; False when `owner` no longer holds it."""
    with sync_session() as session:
        done = session.execute(
            update(Run)
            .where(Run.id == run_id, Run.lease_owner == owner, Run.status.in_(STARTED))
            .values(lease_expires_at=utcnow() + timedelta(seconds=ttl_s))
        )
        session.commit()
    return bool(done.rowcount)  # type: ignore[attr-defined]


def finish(run_id: int, owner: str, **fields: Any) -> bool:
    """Write the run's final fields (status, error, finished_at, ...) and drop the lease, only while
    `owner` still holds it; False when someone else (reaper, cancel) already ended the run."""
    with sync_session() as session:
        done = session.execute(
            update(Run)
            .where(Run.id == run_id, Run.lease_owner == owner, Run.status.in_(STARTED))
            .values(lease_owner=None, lease_expires_at=None, **fields)
        )
        session.commit()
    return bool(done.rowcount)  # type: ignore[attr-defined]


def take_over_expired(run_id: int | None, owner: str, ttl_s: float) -> list[int]:
    """Give `owner` the lease of every started run (or only `run_id`) whose lease expired or that
    has none; the ids taken. A conditional UPDATE per run, so two reapers never take the same run."""
    now = utcnow()
    expired = and_(Run.status.in_(STARTED), or_(Run.lease_expires_at.is_(None), Run.lease_expires_at < now))
    with sync_session() as session:
        query = select(Run.id).where(expired)
        if run_id is not None:
            query = query.where(Run.id == run_id)
        taken = []
        for candidate in session.scalars(query).all():
            done = session.execute(
                update(Run)
                .where(Run.id == candidate, expired)
                .values(lease_owner=owner, lease_expires_at=now + timedelta(seconds=ttl_s))
            )
            session.commit()
            if done.rowcount:  # type: ignore[attr-defined]
                taken.append(candidate)
    return taken


def started_runs_on(targets: Iterable[str], except_run: int) -> list[int]:
    """Ids of other runs between claim and final status that use any of `targets`.

    The database's word on who uses a target, asked after the Redis locks are taken: a lock lost in
    a Redis restart without persistence (or expired in a long outage) must not let a second run onto
    a target whose run is still going, or not yet reaped.
    """
    names = set(targets)
    with sync_session() as session:
        rows = session.execute(
            select(Run.id, Run.targets).where(Run.status.in_(STARTED), Run.id != except_run)
        )
        return [run_id for run_id, used in rows if names & set(filter(None, used.split(",")))]


class RunLease:
    """The heartbeat thread of one run (context manager; see the module docstring).

    Every `run_heartbeat_s` seconds: renew the database lease, then call `renew_locks` (the target
    locks). A failing renewal (database locked, Redis down) is logged and tried again at the next
    beat; the lease's TTL leaves room for a few missed beats. A renewal the database refuses marks
    the lease lost for good.
    """

    def __init__(self, run_id: int, owner: str, renew_locks: Callable[[], None], settings: Settings) -> None:
        self.run_id, self.owner = run_id, owner
        self._renew_locks = renew_locks
        self._ttl_s = settings.run_lease_ttl_s
        self._interval_s = settings.run_heartbeat_s
        self._stop = threading.Event()
        self._lost = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"lease-run-{run_id}", daemon=True)

    @property
    def lost(self) -> bool:
        """True once a renewal found the lease held by someone else."""
        return self._lost.is_set()

    def check(self) -> None:
        """Raise LeaseLost when the lease was lost (the runner's check between iterations)."""
        if self.lost:
            raise LeaseLost(f"run {self.run_id}: lease of {self.owner} lost")

    def _beat(self) -> None:
        while not self._stop.wait(self._interval_s):
            try:
                if not renew(self.run_id, self.owner, self._ttl_s):
                    log.warning(
                        "run %s: lease of %s lost; stopping at the next check", self.run_id, self.owner
                    )
                    self._lost.set()
                    return
            except Exception:  # the database may be busy: the TTL covers a few missed beats
                log.exception("run %s: renewing the lease", self.run_id)
            try:
                self._renew_locks()
            except Exception:  # Redis down: the locks' TTL covers an outage, renewed once it is back
                log.warning("run %s: renewing the target locks failed; retrying", self.run_id, exc_info=True)

    def __enter__(self) -> "RunLease":
        self._thread.start()
        return self

    def __exit__(
        self, _type: type[BaseException] | None, _value: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()
