"""Leases, the reaper and the target locks (execution/) with the run kind (runs/executor/jobs.py) on the real
metadata database and Redis (no servers: the runs here name targets that have none, so the reaper
has nothing to stop)."""

import time
import uuid
from collections.abc import Callable

import pytest
from redis import Redis
from sqlalchemy import update

from upgradelab.db import sync_session
from upgradelab.execution import leases, reaper
from upgradelab.execution.leases import Lease, LeaseLost
from upgradelab.execution.locks import TargetLocks, free_run_locks, lock_key
from upgradelab.execution.status import JobStatus
from upgradelab.runs.executor.jobs import RUN_JOBS, RUNS, started_runs_on
from upgradelab.runs.models import Experiment, Run
from upgradelab.settings import get_settings
from upgradelab.worker_start import prepare_process


@pytest.fixture(autouse=True)
def _kinds_registered() -> None:
    """The job kinds registered with the reaper, as a worker's start-up does (worker_start.py)."""
    prepare_process()


@pytest.fixture
def new_run(database: None, redis_server: str) -> Callable[..., int]:
    """A queued run on made-up targets; its id."""

    def make(*targets: str) -> int:
        with sync_session() as session:
            experiment = Experiment(name="lease", workload="insert-truncate", variants=[], iterations=1)
            session.add(experiment)
            session.flush()
            run = Run(experiment_id=experiment.id, targets="," + ",".join(targets) + ",")
            session.add(run)
            session.commit()
            return run.id

    return make


def _run(run_id: int) -> Run:
    with sync_session() as session:
        run = session.get(Run, run_id)
        assert run is not None
        return run


def test_a_run_is_claimed_once_with_its_lease(new_run: Callable[..., int]) -> None:
    run_id = new_run("lease-a")
    assert leases.claim(run_id, "first", 15, RUNS)
    assert not leases.claim(run_id, "second", 15, RUNS)
    run = _run(run_id)
    assert run.status == JobStatus.provisioning and run.lease_owner == "first"
    assert run.lease_expires_at is not None and run.started_at is not None


def test_reaper_ends_only_runs_whose_lease_expired_and_the_owner_can_no_longer_finish(
    new_run: Callable[..., int],
) -> None:
    expired, live = new_run("lease-b"), new_run("lease-c")
    assert leases.claim(expired, "dead-worker", ttl_s=-1, kind=RUNS)
    assert leases.claim(live, "live-worker", ttl_s=60, kind=RUNS)
    assert expired in reaper.reap_expired()
    ended = _run(expired)
    assert (ended.status, ended.error, ended.lease_owner) == (JobStatus.failed, "worker lost", None)
    assert ended.finished_at is not None
    assert _run(live).status == JobStatus.provisioning and _run(live).lease_owner == "live-worker"
    assert not leases.finish(expired, "dead-worker", RUNS, status=JobStatus.succeeded)
    assert _run(expired).status == JobStatus.failed
    assert not reaper.end_abandoned(RUN_JOBS, live, JobStatus.cancelled, None)  # a worker holds it
    assert leases.finish(live, "live-worker", RUNS, status=JobStatus.succeeded)


def test_heartbeat_renews_the_lease_and_notices_when_it_is_taken(new_run: Callable[..., int]) -> None:
    run_id = new_run("lease-d")
    assert leases.claim(run_id, "me", ttl_s=1, kind=RUNS)
    before = _run(run_id).lease_expires_at
    settings = get_settings().model_copy(update={"job_heartbeat_s": 0.05, "job_lease_ttl_s": 30})
    renewals: list[int] = []
    with Lease(run_id, "me", lambda: renewals.append(1), settings, RUNS) as lease:
        while not renewals:
            time.sleep(0.01)
        after = _run(run_id).lease_expires_at
        assert before is not None and after is not None and after > before
        lease.check()
        with sync_session() as session:
            session.execute(update(Run).where(Run.id == run_id).values(lease_owner="reaper"))
            session.commit()
        deadline = time.monotonic() + 10
        while not lease.lost and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(LeaseLost):
            lease.check()


def test_started_runs_on_names_other_started_runs_sharing_a_target(new_run: Callable[..., int]) -> None:
    name = f"lease-{uuid.uuid4().hex[:6]}"
    started, queued = new_run(name, "lease-e"), new_run(name)
    assert leases.claim(started, "w", 60, RUNS)
    assert started_runs_on([name], except_run=queued) == [started]
    assert started_runs_on(["lease-e"], except_run=started) == []
    assert started_runs_on(["lease-nobody"], except_run=queued) == []


def test_target_locks_are_all_or_none_retaken_after_loss_and_freed_per_run(redis_server: str) -> None:
    redis = Redis.from_url(redis_server, decode_responses=True)
    a, b = f"lock-{uuid.uuid4().hex[:6]}", f"lock-{uuid.uuid4().hex[:6]}"
    mine = TargetLocks(redis, [a, b], ttl_s=90, run_id=1)
    assert mine.acquire()
    assert not TargetLocks(redis, [a], ttl_s=90, run_id=2).acquire()
    redis.delete(lock_key(a))  # a Redis restart without its data
    redis.set(lock_key(b), "run:2:taken")  # another run got in meanwhile
    mine.renew()
    assert str(redis.get(lock_key(a))).startswith("run:1:")
    assert redis.get(lock_key(b)) == "run:2:taken"
    assert 0 < redis.pttl(lock_key(a)) <= 90_000
    assert free_run_locks(redis, 1, [a, b]) == 1
    assert redis.get(lock_key(a)) is None and redis.get(lock_key(b)) == "run:2:taken"
    mine.release()  # nothing of run 1's left: a no-op
    assert redis.get(lock_key(b)) == "run:2:taken"
    redis.close()
