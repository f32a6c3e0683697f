"""How a sharded replay ends when a host is gone or slow to stop, on the real metadata database and
Redis, without servers (what a stop finds is recorded instead: a server with a SLEEP running took
20-35 s to stop under the gate's load, and the replay stayed "running" meanwhile).

A sharded replay whose host is gone is final before its servers are stopped (replay/sharding.py,
execution/lifecycle.py end_now, execution/reaper.py `ends_first`):

- The coordinator's side: a shard's lease expires while shard 0 runs here; the replay and both
  shard rows are final, the error naming the shard and its worker, while shard 0 still runs (its
  servers not yet stopped), and the lifecycle's sweep comes after.
- The reaper's side: the replay's own worker is gone; the reaper writes the replay and its shards
  final before it stops the targets' servers. An unsharded replay keeps the order every kind has:
  servers stopped, then the final state.

A cancelled one merges what each shard stored as soon as each has (a shard stores it before its
servers stop: shard_runner.py, Interrupt.kept), not once every shard has stopped."""

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from redis import Redis
from sqlalchemy import select

from tests.replay.test_shards import _cut, _variants
from tests.replay.test_statement_cost import _statements
from upgradelab.db import sync_session
from upgradelab.execution import leases, lifecycle, reaper
from upgradelab.execution.kinds import Ending
from upgradelab.execution.leases import Lease
from upgradelab.execution.status import JobStatus
from upgradelab.measurement import Interrupt, SourceStatement, VariantReplay
from upgradelab.pools.schemas import WorkerRead
from upgradelab.replay import sharding
from upgradelab.replay import shards as shards_module
from upgradelab.replay.jobs import REPLAY_JOBS, REPLAY_SHARDS, REPLAYS
from upgradelab.replay.models import ReplayRun, ReplayShard
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.worker_start import prepare_process


@pytest.fixture(autouse=True)
def _kinds_registered() -> None:
    """The job kinds registered with the reaper, as a worker's start-up does (worker_start.py)."""
    prepare_process()


def _worker(name: str) -> WorkerRead:
    now = datetime.now(UTC)
    return WorkerRead(
        name=name, pool="local", queues=["upgradelab"], host="h", pid=1, version="t", python="3",
        cpus=2, memory_mb=1, started_at=now, seen_at=now,
    )  # fmt: skip


def _state(replay_id: int) -> tuple[str, str | None, list[tuple[str, str | None]]]:
    """(replay status, its error, [(shard status, its error)] by shard)."""
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        assert replay is not None
        rows = session.scalars(
            select(ReplayShard).where(ReplayShard.replay_id == replay_id).order_by(ReplayShard.shard)
        ).all()
        return str(replay.status), replay.error, [(str(r.status), r.error) for r in rows]


def test_a_lost_shard_makes_the_replay_final_while_shard_0_still_runs(
    new_replay: Callable[[str], int], monkeypatch: pytest.MonkeyPatch
) -> None:
    replay_id = new_replay("shard-lost-a")
    settings = get_settings().model_copy(update={"job_heartbeat_s": 0.2})
    statements = [SourceStatement(f"SELECT {n}", None, "select ?", f"fp{n}", "SELECT", n) for n in range(2)]
    plans = [
        sharding.ShardPlan(0, [0], _worker("celery@here"), 0),
        sharding.ShardPlan(1, [1], _worker("local@gone"), 2),
    ]
    seen: dict[str, Any] = {}
    stops: list[tuple[str, ...]] = []
    monkeypatch.setattr(
        lifecycle, "stop_targets", lambda *_: stops.append((_state(replay_id)[0], seen.get("returned", "")))
    )
    target = Target(name="shard-lost-a")

    def run_own(_own: sharding.Own) -> list[VariantReplay]:
        with sync_session() as session:
            lost = session.scalars(
                select(ReplayShard.id).where(ReplayShard.replay_id == replay_id, ReplayShard.shard == 1)
            ).one()
        assert leases.claim(lost, "gone-worker", -1, REPLAY_SHARDS)  # its host gone: the lease expired
        deadline = time.monotonic() + 10  # shard 0's statement, still running
        while _state(replay_id)[0] == JobStatus.running and time.monotonic() < deadline:
            time.sleep(0.05)
        seen["while shard 0 ran"] = _state(replay_id)
        seen["returned"] = "yes"
        return []

    def body(lease: Lease) -> Ending:
        try:
            return sharding.coordinate(
                replay_id, plans, run_own, lambda *_: Ending(JobStatus.succeeded), Interrupt(), settings,
                statements, lambda *_: None,
                lambda early: lifecycle.end_now(REPLAY_JOBS, replay_id, lease, early),
            )  # fmt: skip
        except sharding.ShardFailed as failed:
            return Ending(JobStatus.failed, str(failed))

    redis = Redis.from_url(settings.redis_url)
    try:
        status = lifecycle.execute(REPLAY_JOBS, replay_id, [target], redis, settings, body)
    finally:
        redis.close()
    why = "shard 2 of 2 (worker local@gone): worker lost (its lease expired)"
    assert seen["while shard 0 ran"] == (
        "failed", why, [("failed", f"the replay ended: {why}"), ("failed", "worker lost")]
    )  # fmt: skip
    assert status == JobStatus.failed and _state(replay_id)[:2] == ("failed", why)
    assert stops == [("failed", "yes")]  # the sweep: after shard 0 returned, the replay final before it
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        assert replay is not None and replay.lease_owner is None and replay.ended_at is not None


@pytest.mark.parametrize("sharded", [True, False])
def test_the_reaper_ends_a_sharded_replay_before_it_stops_its_servers(
    new_replay: Callable[[str], int], monkeypatch: pytest.MonkeyPatch, sharded: bool
) -> None:
    replay_id = new_replay("shard-lost-b")
    if sharded:
        with sync_session() as session:
            session.add_all(
                ReplayShard(replay_id=replay_id, shard=n, statements=[n], worker=f"w{n}", status="running")
                for n in range(2)
            )
            session.commit()
    assert leases.claim(replay_id, "dead-worker", -1, REPLAYS)  # its worker gone: the lease expired
    stopped_when: list[tuple[str, str | None, list[tuple[str, str | None]]]] = []
    monkeypatch.setattr(reaper, "stop_targets", lambda *_: stopped_when.append(_state(replay_id)))
    assert replay_id in reaper.reap_expired(get_settings(), REPLAY_JOBS.name)
    final = ("failed", "worker lost", [("failed", "the replay ended: worker lost")] * 2 if sharded else [])
    assert _state(replay_id) == final
    # a sharded replay: final (its shards too) before its servers are stopped; else, as every kind,
    # its servers stopped first: whoever sees it final finds them stopped
    assert stopped_when == [final if sharded else ("running", None, [])]


def test_a_cancel_merges_what_each_shard_stored_without_waiting_for_it_to_stop(
    new_replay: Callable[[str], int],
) -> None:
    """Shard 2 still runs (its servers stopping) but stored what it captured: the partial report
    is made at once, with both shards' statements, not after CANCEL_WAIT_S (30 s)."""
    replay_id = new_replay("shard-cancel")
    settings = get_settings()
    statements = _statements()
    split_at = shards_module.split(statements, 2)
    results = [[_cut(r, shard) for r in _variants()] for shard in split_at]
    plans = [
        sharding.ShardPlan(n, shard, _worker(name), 2 * n)
        for n, (shard, name) in enumerate(zip(split_at, ["celery@here", "local@slow"], strict=True))
    ]
    with sync_session() as session:
        rows = [
            ReplayShard(
                replay_id=replay_id,
                shard=plan.number,
                statements=plan.statements,
                worker=plan.worker.name,
                status="running",
                result=sharding.seal(results[1], settings, len(plan.statements)) if plan.number else None,
            )
            for plan in plans
        ]
        session.add_all(rows)
        session.commit()
        ids = {row.shard: row.id for row in rows}
    kept: list[tuple[int, list[int | None], shards_module.Spread]] = []
    started = time.monotonic()

    def partial(
        statements_kept: list[SourceStatement], _replays: object, null_of: list[int | None], spread: Any
    ) -> None:
        kept.append((len(statements_kept), null_of, spread))

    ending = sharding._cancelled(ids, plans, statements, (results[0], None), partial, settings)
    assert time.monotonic() - started < 5, time.monotonic() - started
    assert ending.status == JobStatus.cancelled
    assert [(n, spread.hosts) for n, _, spread in kept] == [(len(statements), ["celery@here", "local@slow"])]
