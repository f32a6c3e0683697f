"""Replay leases and their reaper (replay/leases.py) on the real metadata database, Redis and a real
server: a replay whose worker died (its lease expired) is ended "worker lost", the server it left is
stopped and its target lock freed; a replay whose worker is alive is left alone."""

from collections.abc import Callable, Iterator

import pytest
from redis import Redis
from sqlalchemy import select

from upgradelab.datasets.models import Dataset
from upgradelab.db import sync_session
from upgradelab.replay import leases
from upgradelab.replay.models import ReplayRun
from upgradelab.runs.locks import TargetLocks, lock_key
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import provisioner_for

TARGET = "mariadb-10.11"


@pytest.fixture
def new_replay(database: None, redis_server: str) -> Iterator[Callable[[str], int]]:
    """A queued replay on `target` (a made-up dataset row); its id. Rows removed afterwards."""
    made: list[int] = []

    def make(target: str) -> int:
        with sync_session() as session:
            dataset = session.scalar(select(Dataset).where(Dataset.name == "lease-h8"))
            if dataset is None:
                dataset = Dataset(
                    name="lease-h8", path="/nonexistent", sha256="0", size_bytes=0, compression="none"
                )
                session.add(dataset)
                session.flush()
            variants = [{"name": target, "target": target, "preset": "default", "options": []}]
            replay = ReplayRun(
                name="lease", dataset_id=dataset.id, source_format="sql", variants=variants, repeats=1,
                sample=1, statements=[], skipped_writes=[],
            )  # fmt: skip
            session.add(replay)
            session.commit()
            made.append(replay.id)
            return replay.id

    yield make
    with sync_session() as session:
        for replay_id in made:
            session.delete(session.get(ReplayRun, replay_id))
        dataset = session.scalar(select(Dataset).where(Dataset.name == "lease-h8"))
        if dataset is not None:
            session.delete(dataset)
        session.commit()


def _replay(replay_id: int) -> ReplayRun:
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        assert replay is not None
        return replay


def test_a_replay_is_claimed_once_and_finished_only_by_its_owner(new_replay: Callable[[str], int]) -> None:
    replay_id = new_replay("lease-h8-a")
    assert leases.claim(replay_id, "first", 15) and not leases.claim(replay_id, "second", 15)
    assert _replay(replay_id).status == "running" and _replay(replay_id).lease_owner == "first"
    assert leases.renew(replay_id, "first", 15) and not leases.renew(replay_id, "second", 15)
    assert not leases.finish(replay_id, "second", status="succeeded")
    assert leases.finish(replay_id, "first", status="succeeded")
    assert _replay(replay_id).status == "succeeded" and _replay(replay_id).lease_owner is None


def test_reaper_stops_the_dead_replays_server_frees_its_lock_and_ends_it(
    new_replay: Callable[[str], int], redis_server: str
) -> None:
    settings = get_settings()
    dead, live = new_replay(TARGET), new_replay("lease-h8-live")
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == TARGET)).one()
    server = provisioner_for(target, settings, slot=1)  # an instance the dead replay had started
    server.start([])
    redis = Redis.from_url(redis_server)
    try:
        assert TargetLocks(redis, [TARGET], 90, leases.REPLAY_LOCK_RUN_ID).acquire()
        assert leases.claim(dead, "dead-worker", ttl_s=-1)  # its heartbeat stopped: the lease expired
        assert leases.claim(live, "live-worker", ttl_s=60)
        reaped = leases.reap_expired(settings)
        assert dead in reaped and live not in reaped
        ended = _replay(dead)
        assert ended.status == "failed" and ended.error == leases.WORKER_LOST and ended.ended_at is not None
        assert server.pid() is None
        assert not redis.exists(lock_key(TARGET))
        assert _replay(live).status == "running" and _replay(live).lease_owner == "live-worker"
        assert not leases.finish(dead, "dead-worker", status="succeeded")  # too late for the old worker
    finally:
        server.stop()
        redis.delete(lock_key(TARGET))
        redis.close()
