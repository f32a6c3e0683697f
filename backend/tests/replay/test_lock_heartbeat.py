"""A replay's lease and target locks live as long as its heartbeat beats, on the real metadata
database and Redis: the locks renewed past their TTL while the replay's thread is busy, gone within
the TTL once the beats stop (a killed worker); the lease lost once someone else holds it."""

import time
from collections.abc import Callable

import pytest
from redis import Redis
from sqlalchemy import update

from upgradelab.db import sync_session
from upgradelab.execution import leases
from upgradelab.execution.leases import Lease, LeaseLost
from upgradelab.execution.locks import TargetLocks, lock_key
from upgradelab.replay.jobs import REPLAYS
from upgradelab.replay.models import ReplayRun
from upgradelab.settings import get_settings

TARGET = "replay-heartbeat-h8"


def test_locks_outlive_their_ttl_while_the_heartbeat_beats_and_lapse_after(
    redis_server: str, new_replay: Callable[[str], int]
) -> None:
    replay_id = new_replay(TARGET)
    assert leases.claim(replay_id, "me", 15, REPLAYS)
    settings = get_settings().model_copy(update={"job_heartbeat_s": 0.2, "job_lease_ttl_s": 15})
    redis = Redis.from_url(redis_server)
    try:
        locks = TargetLocks(redis, [TARGET], ttl_s=1)
        assert locks.acquire()
        with Lease(replay_id, "me", locks.renew, settings, REPLAYS) as lease:
            time.sleep(2.5)  # the replay's thread busy for longer than the TTL
            assert redis.exists(lock_key(TARGET)) and not lease.lost
        time.sleep(1.5)  # no more beats (as after a kill): the lock expires by itself
        assert not redis.exists(lock_key(TARGET))
        assert TargetLocks(redis, [TARGET], ttl_s=1).acquire()  # the target is free again
    finally:
        redis.delete(lock_key(TARGET))
        redis.close()


def test_the_heartbeat_notices_when_the_reaper_took_the_replay(new_replay: Callable[[str], int]) -> None:
    replay_id = new_replay(TARGET)
    assert leases.claim(replay_id, "me", 15, REPLAYS)
    settings = get_settings().model_copy(update={"job_heartbeat_s": 0.05, "job_lease_ttl_s": 15})
    with Lease(replay_id, "me", lambda: None, settings, REPLAYS) as lease:
        with sync_session() as session:
            session.execute(update(ReplayRun).where(ReplayRun.id == replay_id).values(lease_owner="reaper"))
            session.commit()
        deadline = time.monotonic() + 10
        while not lease.lost and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(LeaseLost, match=f"replay {replay_id}"):
            lease.check()
