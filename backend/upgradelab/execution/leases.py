"""Leases: a job (a run, a replay) being executed is held by one worker process, which proves it is alive.

The lease lives in the metadata database (`lease_owner`, `lease_expires_at` of the job's row: `run`
or `replay_run`), not in Redis: a Redis restart or an outage of a minute must not look like a dead
worker, and the reaper (execution/reaper.py) needs nothing but the database to decide. A heartbeat
thread in the worker renews it every `job_heartbeat_s` seconds for `job_lease_ttl_s` seconds (15 s
by default), whatever the row's own thread is doing (dataset preparation, a server start, a long
iteration or statement), and renews the target locks (Redis, execution/locks.py) in the same beat. A
renewal that finds the lease taken (the reaper ended the row) marks it lost; the runner stops at
its next check (`Lease.check`).

Every kind goes through the same functions, told apart by the `LeaseKind` its executor defines
(runs/executor/jobs.py RUNS, replay/jobs.py REPLAYS): which table, which status a claim moves from and to,
which statuses hold a lease. Used once per row, by execution/lifecycle.py:

    owner = new_owner()
    if not claim(job_id, owner, ttl_s, kind): ...          # queued -> started, lease taken
    with Lease(job_id, owner, locks.renew, settings, kind) as lease:
        ... lease.check() between iterations ...
    finish(job_id, owner, kind, status=..., error=...)     # final status, only while still the owner
"""

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update

from upgradelab.db import sync_session, utcnow
from upgradelab.execution.periodic import Periodic
from upgradelab.execution.status import FINAL_STATUSES, JobStatus
from upgradelab.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LeaseKind:
    """A kind of job a worker leases, defined by its executor: its name (also its target locks'
    holder, execution/locks.py `<name>:<id>:`), its table's model (columns id, status, lease_owner,
    lease_expires_at), the status a claim takes it from (`queued`) and to (`claimed`), the statuses
    that hold a lease (`started`), the final ones (`final`: a job never leaves them) and the column a
    claim stamps with the time, if any."""

    name: str
    model: Any
    queued: str
    claimed: str
    started: tuple[str, ...]
    final: tuple[str, ...]
    claim_stamp: str | None = None


def job_lease(name: str, model: Any, claim_stamp: str | None = "started_at") -> LeaseKind:
    """The lease of a kind with the shared status vocabulary (execution/status.py): queued, claimed
    to running (the one started status), final in FINAL_STATUSES; `claim_stamp` the column a claim
    stamps (None: none). Every kind but the run (which claims to provisioning) uses it."""
    return LeaseKind(
        name,
        model,
        JobStatus.queued,
        JobStatus.running,
        (JobStatus.running,),
        tuple(FINAL_STATUSES),
        claim_stamp,
    )


class LeaseLost(Exception):
    """This worker no longer holds the row's lease (the reaper or a cancel ended it)."""


def new_owner() -> str:
    """`<host>:<pid>:<8 hex>`: who holds a lease, readable in the database when debugging."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def claim(job_id: int, owner: str, ttl_s: float, kind: LeaseKind) -> bool:
    """queued -> claimed (runs: provisioning, with started_at; replays: running) with a lease of
    ttl_s seconds for `owner`, in one conditional UPDATE; False when the row is no longer queued
    (cancelled, or another worker has it)."""
    now = utcnow()
    model = kind.model
    stamp = {kind.claim_stamp: now} if kind.claim_stamp else {}
    with sync_session() as session:
        done = session.execute(
            update(model)
            .where(model.id == job_id, model.status == kind.queued)
            .values(
                status=kind.claimed,
                lease_owner=owner,
                lease_expires_at=now + timedelta(seconds=ttl_s),
                **stamp,
            )
        )
        session.commit()
    return bool(done.rowcount)  # type: ignore[attr-defined]


def renew(job_id: int, owner: str, ttl_s: float, kind: LeaseKind) -> bool:
    """Push the lease's expiry to now + ttl_s; False when `owner` no longer holds it."""
    model = kind.model
    with sync_session() as session:
        done = session.execute(
            update(model)
            .where(model.id == job_id, model.lease_owner == owner, model.status.in_(kind.started))
            .values(lease_expires_at=utcnow() + timedelta(seconds=ttl_s))
        )
        session.commit()
    return bool(done.rowcount)  # type: ignore[attr-defined]


def finish(job_id: int, owner: str, kind: LeaseKind, **fields: Any) -> bool:
    """Write the row's final fields (status, error, finished_at / ended_at, ...) and drop the lease,
    only while `owner` still holds it; False when someone else (reaper, cancel) already ended it."""
    model = kind.model
    with sync_session() as session:
        done = session.execute(
            update(model)
            .where(model.id == job_id, model.lease_owner == owner, model.status.in_(kind.started))
            .values(lease_owner=None, lease_expires_at=None, **fields)
        )
        session.commit()
    return bool(done.rowcount)  # type: ignore[attr-defined]


def take_over_expired(
    job_id: int | None, owner: str, ttl_s: float, kind: LeaseKind, grace_s: float = 0.0
) -> list[int]:
    """Give `owner` the lease of every started row (or only `job_id`) whose lease expired more than
    `grace_s` seconds ago or that has none; the ids taken. A conditional UPDATE per row, so two
    reapers never take the same one."""
    now = utcnow()
    model = kind.model
    expired = and_(
        model.status.in_(kind.started),
        or_(model.lease_expires_at.is_(None), model.lease_expires_at < now - timedelta(seconds=grace_s)),
    )
    with sync_session() as session:
        query = select(model.id).where(expired)
        if job_id is not None:
            query = query.where(model.id == job_id)
        taken = []
        for candidate in session.scalars(query).all():
            done = session.execute(
                update(model)
                .where(model.id == candidate, expired)
                .values(lease_owner=owner, lease_expires_at=now + timedelta(seconds=ttl_s))
            )
            session.commit()
            if done.rowcount:  # type: ignore[attr-defined]
                taken.append(candidate)
    return taken


class Lease(Periodic):
    """The heartbeat thread of one job (a context manager; see the module docstring).

    Every `job_heartbeat_s` seconds: renew the database lease, then call `renew_locks` (the target
    locks). A failing renewal (database locked, Redis down) is logged and tried again at the next
    beat; the lease's TTL leaves room for a few missed beats. A renewal the database refuses marks
    the lease lost for good. Once the job's final state was written early (`end`), the beats renew
    the target locks only, until the `with` block ends.
    """

    def __init__(
        self, job_id: int, owner: str, renew_locks: Callable[[], None], settings: Settings, kind: LeaseKind
    ) -> None:
        self.job_id, self.owner, self.kind = job_id, owner, kind
        self._renew_locks = renew_locks
        self._ttl_s = settings.job_lease_ttl_s
        self._lost = threading.Event()
        self._ending = threading.Event()  # end() called: a refused renewal is this lease's own end
        self.final: dict[str, Any] | None = None  # the fields end() wrote
        super().__init__(f"lease-{kind.name}-{job_id}", settings.job_heartbeat_s, self._beat)

    @property
    def lost(self) -> bool:
        """True once a renewal found the lease held by someone else."""
        return self._lost.is_set()

    @property
    def ended(self) -> bool:
        """True once end() wrote the job's final fields."""
        return self.final is not None

    def end(self, fields: dict[str, Any]) -> bool:
        """Write the job's final fields now (`finish`: status, error, the end time, ...), from any
        thread, while the job's body still unwinds (execution/lifecycle.py end_now); the beats renew
        the target locks only from then on. False, and the lease lost, when someone else (the
        reaper, a cancel) ended the job first."""
        self._ending.set()
        if not finish(self.job_id, self.owner, self.kind, **fields):
            self._lost.set()
            return False
        self.final = dict(fields)
        return True

    def check(self) -> None:
        """Raise LeaseLost when the lease was lost (the runner's check between iterations)."""
        if self.lost:
            raise LeaseLost(f"{self.kind.name} {self.job_id}: lease of {self.owner} lost")

    def _beat(self) -> bool:
        where = f"{self.kind.name} {self.job_id}"
        if self._lost.is_set():
            return False
        try:
            renewed = self._ending.is_set() or renew(self.job_id, self.owner, self._ttl_s, self.kind)
            if not renewed and not self._ending.is_set():  # not this lease's own end meanwhile
                log.warning("%s: lease of %s lost; stopping at the next check", where, self.owner)
                self._lost.set()
                return False
        except Exception:  # the database may be busy: the TTL covers a few missed beats
            log.exception("%s: renewing the lease", where)
        try:
            self._renew_locks()
        except Exception:  # Redis down: the locks' TTL covers an outage, renewed once it is back
            log.warning("%s: renewing the target locks failed; retrying", where, exc_info=True)
        return True
