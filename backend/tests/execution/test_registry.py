"""The reaper's registry (execution/reaper.py): a kind of job the execution layer has never heard of
(here a test table, as the attributions will be) is reaped once its executor registers it: its
expired lease taken over, its locks freed, its run-end hook called, its final fields written and
published; one whose worker is alive is left alone. On the real metadata database and Redis."""

import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from redis import Redis
from sqlalchemy import String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from upgradelab.db import UTCDateTime, sync_engine, sync_session
from upgradelab.execution import leases, reaper
from upgradelab.execution.kinds import Ending, JobKind
from upgradelab.execution.leases import LeaseKind
from upgradelab.execution.locks import TargetLocks, lock_key
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target


class _Base(DeclarativeBase):
    pass


class Chore(_Base):
    """A second kind of job, in a table of its own."""

    __tablename__ = "test_chore"

    id: Mapped[int] = mapped_column(primary_key=True)
    status: Mapped[str] = mapped_column(String(16), default="waiting")
    note: Mapped[str | None] = mapped_column(String(100), default=None)
    lease_owner: Mapped[str | None] = mapped_column(String(200), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)


CHORES = LeaseKind("chore", Chore, "waiting", "working", ("working",), ("done", "broken"))


@pytest.fixture
def chores(database: None, redis_server: str) -> Iterator[dict[str, list[Any]]]:
    """The chore kind registered (its hooks' calls recorded), its table made; both undone after."""
    _Base.metadata.create_all(sync_engine())
    calls: dict[str, list[Any]] = {"ended": [], "published": []}
    target = Target(name=f"chore-{uuid.uuid4().hex[:6]}", provisioner="local", flavor="mariadb", settings={})
    kind = JobKind(
        CHORES,
        succeeded="done",
        failed="broken",
        targets_of=lambda job_id: [target],
        final_fields=lambda ending: {"status": ending.status, "note": ending.error},
        on_end=lambda job_id, ending: calls["ended"].append((job_id, ending.status, ending.reaped)),
        published=lambda job_id, fields: calls["published"].append((job_id, fields["status"])),
    )
    reaper.register(kind)
    calls["target"] = [target]
    try:
        yield calls
    finally:
        reaper._REGISTRY.pop(kind.name, None)
        _Base.metadata.drop_all(sync_engine())


def _new_chore() -> int:
    with sync_session() as session:
        chore = Chore()
        session.add(chore)
        session.commit()
        return chore.id


def _chore(chore_id: int) -> Chore:
    with sync_session() as session:
        chore = session.get(Chore, chore_id)
        assert chore is not None
        return chore


def test_a_registered_second_kind_is_reaped_by_the_registry(
    chores: dict[str, list[Any]], redis_server: str
) -> None:
    assert "chore" in [kind.name for kind in reaper.registered()]
    dead, alive = _new_chore(), _new_chore()
    target = chores["target"][0]
    redis = Redis.from_url(redis_server, decode_responses=True)
    try:
        assert TargetLocks(redis, [target.name], 90, dead, "chore").acquire()
        assert leases.claim(dead, "dead-worker", -1, CHORES)  # its heartbeat stopped
        assert leases.claim(alive, "live-worker", 60, CHORES)
        reaped = reaper.reap_expired(get_settings())  # every registered kind
        assert dead in reaped and alive not in reaped
        ended = _chore(dead)
        assert (ended.status, ended.note, ended.lease_owner) == ("broken", reaper.WORKER_LOST, None)
        assert chores["ended"] == [(dead, "broken", True)]
        assert chores["published"] == [(dead, "broken")]
        assert redis.get(lock_key(target.name)) is None  # its lock freed
        assert _chore(alive).status == "working" and _chore(alive).lease_owner == "live-worker"
        assert not reaper.end_abandoned(_kind("chore"), alive, "done", None)  # a worker holds it
        assert not leases.finish(dead, "dead-worker", CHORES, status="done")  # too late for it
    finally:
        redis.delete(lock_key(target.name))
        redis.close()


def _kind(name: str) -> JobKind:
    return next(kind for kind in reaper.registered() if kind.name == name)


def test_a_kind_nobody_registered_is_not_reaped(chores: dict[str, list[Any]]) -> None:
    assert reaper.reap_expired(get_settings(), "nobody") == []
    assert isinstance(Ending("done"), Ending)
