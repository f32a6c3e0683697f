"""A replay's target locks live as long as its heartbeat beats, on a real Redis: renewed past their
TTL while the replay's thread is busy, gone within the TTL once the beats stop (a killed worker)."""

import time

from redis import Redis

from upgradelab.replay.leases import Heartbeat
from upgradelab.runs.locks import TargetLocks, lock_key

TARGET = "replay-heartbeat-h8"


def test_locks_outlive_their_ttl_while_the_heartbeat_beats_and_lapse_after(redis_server: str) -> None:
    redis = Redis.from_url(redis_server)
    try:
        locks = TargetLocks(redis, [TARGET], ttl_s=1)
        assert locks.acquire()
        with Heartbeat(lambda: True, locks.renew, 0.2, "test-heartbeat"):
            time.sleep(2.5)  # the replay's thread busy for longer than the TTL
            assert redis.exists(lock_key(TARGET))
        time.sleep(1.5)  # no more beats (as after a kill): the lock expires by itself
        assert not redis.exists(lock_key(TARGET))
        assert TargetLocks(redis, [TARGET], ttl_s=1).acquire()  # the target is free again
    finally:
        redis.delete(lock_key(TARGET))
        redis.close()
