"""Replay leases and the reaper (execution/leases.py and execution/reaper.py, kind REPLAYS) on the real
metadata database, Redis and a real server: a replay whose worker died (its lease expired) is ended
"worker lost", the server it left is stopped and its target lock freed; a replay whose worker is
alive is left alone."""

from collections.abc import Callable

import pytest
from redis import Redis
from sqlalchemy import select

from upgradelab.db import sync_session
from upgradelab.execution import leases
from upgradelab.execution.locks import TargetLocks, free_run_locks, lock_key
from upgradelab.execution.reaper import WORKER_LOST, reap_expired
from upgradelab.replay.jobs import REPLAY_JOBS, REPLAYS
from upgradelab.replay.models import ReplayRun
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import provisioner_for
from upgradelab.worker_start import prepare_process


@pytest.fixture(autouse=True)
def _kinds_registered() -> None:
    """The job kinds registered with the reaper, as a worker's start-up does (worker_start.py)."""
    prepare_process()


TARGET = "mariadb-10.11"


def _replay(replay_id: int) -> ReplayRun:
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        assert replay is not None
        return replay


def test_a_replay_is_claimed_once_and_finished_only_by_its_owner(new_replay: Callable[[str], int]) -> None:
    replay_id = new_replay("lease-h8-a")
    assert leases.claim(replay_id, "first", 15, REPLAYS) and not leases.claim(
        replay_id, "second", 15, REPLAYS
    )
    assert _replay(replay_id).status == "running" and _replay(replay_id).lease_owner == "first"
    assert leases.renew(replay_id, "first", 15, REPLAYS) and not leases.renew(
        replay_id, "second", 15, REPLAYS
    )
    assert not leases.finish(replay_id, "second", REPLAYS, status="succeeded")
    assert leases.finish(replay_id, "first", REPLAYS, status="succeeded")
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
        assert TargetLocks(redis, [TARGET], 90, dead, "replay").acquire()
        value = redis.get(lock_key(TARGET))
        assert isinstance(value, bytes) and value.startswith(f"replay:{dead}:".encode()), value
        assert free_run_locks(redis, dead, [TARGET]) == 0  # a run with the replay's id cannot free it
        assert leases.claim(dead, "dead-worker", -1, REPLAYS)  # its heartbeat stopped: the lease expired
        assert leases.claim(live, "live-worker", 60, REPLAYS)
        reap_expired(settings, "run")  # the runs' pass leaves replays alone
        assert _replay(dead).status == "running" and _replay(dead).lease_owner == "dead-worker"
        reaped = reap_expired(settings, REPLAY_JOBS.name)
        assert dead in reaped and live not in reaped
        ended = _replay(dead)
        assert ended.status == "failed" and ended.error == WORKER_LOST and ended.ended_at is not None
        assert server.pid() is None
        assert not redis.exists(lock_key(TARGET))
        assert _replay(live).status == "running" and _replay(live).lease_owner == "live-worker"
        too_late = leases.finish(dead, "dead-worker", REPLAYS, status="succeeded")
        assert not too_late  # for the old worker
    finally:
        server.stop()
        redis.delete(lock_key(TARGET))
        redis.close()
