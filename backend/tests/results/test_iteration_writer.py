"""The run loop's iteration writer (results/store/ingest.py IterationWriter): iterations handed over
are stored in batches from a thread of its own, each with the time it ended; `flush` waits for them;
the exit stores the rest; `discard` drops what is not stored; a storing error reaches the run loop."""

import time
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from tests.results.synthetic import SyntheticVariant, insert_run
from upgradelab.db import sync_session, utcnow
from upgradelab.results.store.hooks import Place
from upgradelab.results.store.ingest import IterationWriter
from upgradelab.results.store.models import Iteration, Sample
from upgradelab.workloads.base import StatementTiming


@pytest.fixture
def run_id(database: None, redis_server: str) -> Iterator[int]:
    with sync_session() as session:
        yield insert_run(session, [SyntheticVariant("a")], rounds=1, block=1)


def _stored(run_id: int) -> int:
    with sync_session() as session:
        return int(
            session.scalar(
                select(func.count()).where(Iteration.run_id == run_id, Iteration.variant_index == 7)
            )
            or 0
        )


def _place(run_id: int, number: int) -> Place:
    return Place(run_id, 7, "w", number, "", 1, 1, 0)  # a variant the synthetic run has no rows of


def test_iterations_are_stored_within_the_interval_and_keep_their_own_end_time(run_id: int) -> None:
    with IterationWriter(interval_s=0.3) as writer:
        before = utcnow()
        writer.add(
            _place(run_id, 1), [StatementTiming("SELECT 1", 0.25), StatementTiming("SELECT 2", 0.5)], {}
        )
        time.sleep(1.0)  # longer than the interval, nothing flushed
        assert _stored(run_id) == 1
        writer.add(_place(run_id, 2), [StatementTiming("SELECT 1", 0.125)], {})
        writer.flush()
        assert _stored(run_id) == 2
    with sync_session() as session:
        rows = session.execute(
            select(Iteration.iteration, Iteration.elapsed_s, Iteration.ended_at)
            .where(Iteration.run_id == run_id, Iteration.variant_index == 7)
            .order_by(Iteration.iteration)
        ).all()
        samples = session.scalar(
            select(func.count()).where(Sample.run_id == run_id, Sample.variant_index == 7)
        )
    assert [(r.iteration, r.elapsed_s) for r in rows] == [(1, 0.75), (2, 0.125)]
    # the first iteration's end time is when it was handed over, not when its batch was committed
    assert abs((rows[0].ended_at - before).total_seconds()) < 0.25
    assert (rows[1].ended_at - rows[0].ended_at).total_seconds() >= 0.9
    assert samples == 3


def test_leaving_the_writer_stores_what_was_handed_over_at_once(run_id: int) -> None:
    with IterationWriter(interval_s=60.0) as writer:
        for number in range(1, 6):
            writer.add(_place(run_id, number), [StatementTiming("SELECT 1", 0.01)], {})
        started = time.monotonic()
    assert _stored(run_id) == 5
    assert time.monotonic() - started < 10.0  # not the 60 s interval


def test_discard_drops_what_is_not_stored_yet(run_id: int) -> None:
    with IterationWriter(interval_s=60.0) as writer:
        writer.add(_place(run_id, 1), [StatementTiming("SELECT 1", 0.01)], {})
        writer.discard()
    assert _stored(run_id) == 0


def test_a_storing_error_is_raised_in_the_run_loop(run_id: int) -> None:
    writer = IterationWriter(interval_s=0.0)
    writer.add(_place(run_id, 1), [StatementTiming("SELECT 1", 0.01)], {})
    writer.add(_place(run_id, 1), [StatementTiming("SELECT 1", 0.01)], {})  # the same iteration twice
    with pytest.raises(RuntimeError, match="storing iterations failed"):
        writer.flush()
        writer.flush()
    with pytest.raises(RuntimeError, match="storing iterations failed"):
        writer.add(_place(run_id, 2), [StatementTiming("SELECT 1", 0.01)], {})
    writer.__exit__(RuntimeError, None, None)
