"""A fix search's lease and the reaper (execution/leases.py, execution/reaper.py, kind FIX_SEARCHES):
claimed once, finished only by its owner, and ended "worker lost" by the reaper once its worker's
heartbeat stopped, as replays are. Rows only: its variants name no target, so no server is touched."""

from collections.abc import Iterator

import pytest

from upgradelab.datasets.models import Dataset
from upgradelab.db import sync_session
from upgradelab.execution import leases
from upgradelab.execution.reaper import WORKER_LOST, reap_expired
from upgradelab.fixsearch.jobs import FIX_SEARCH_JOBS, FIX_SEARCHES
from upgradelab.fixsearch.models import FixSearch
from upgradelab.replay.models import ReplayRun
from upgradelab.settings import get_settings
from upgradelab.worker_start import prepare_process


@pytest.fixture
def searches(database: None, redis_server: str) -> Iterator[list[int]]:
    """Two queued fix searches on one made-up replay; rows removed afterwards."""
    prepare_process()  # the job kinds registered with the reaper, as a worker's start-up does
    with sync_session() as session:
        dataset = Dataset(
            name="fix-leases", path="/nonexistent", sha256="0", size_bytes=0, compression="none"
        )
        session.add(dataset)
        session.flush()
        replay = ReplayRun(name="fix-leases", dataset_id=dataset.id, source_format="sql", variants=[],
                           repeats=1, sample=1, statements=[], skipped_writes=[])  # fmt: skip
        session.add(replay)
        session.flush()
        rows = [
            FixSearch(
                replay_id=replay.id,
                fingerprint_id="f",
                variant="v",
                baseline="b",
                dataset_id=dataset.id,
                variants=[
                    {"name": n, "target": f"no-such-target-{n}", "preset": "default", "options": []}
                    for n in ("b", "v")
                ],
            )
            for _ in range(2)
        ]
        session.add_all(rows)
        session.commit()
        ids = [row.id for row in rows]
    yield ids
    with sync_session() as session:
        for search_id in ids:
            session.delete(session.get(FixSearch, search_id))
        session.delete(session.get(ReplayRun, replay.id))
        session.delete(session.get(Dataset, dataset.id))
        session.commit()


def _row(search_id: int) -> FixSearch:
    with sync_session() as session:
        row = session.get(FixSearch, search_id)
        assert row is not None
        return row


def test_a_dead_workers_fix_search_is_reaped_and_a_live_ones_is_left_alone(searches: list[int]) -> None:
    dead, live = searches
    assert leases.claim(dead, "dead-worker", -1, FIX_SEARCHES)  # its heartbeat stopped: expired
    assert not leases.claim(dead, "another", 15, FIX_SEARCHES)  # claimed once
    assert leases.claim(live, "live-worker", 60, FIX_SEARCHES)
    assert _row(dead).status == "running" and _row(dead).started_at is not None
    reap_expired(get_settings(), "replay")  # the replays' pass leaves fix searches alone
    assert _row(dead).status == "running"
    reaped = reap_expired(get_settings(), FIX_SEARCH_JOBS.name)
    assert dead in reaped and live not in reaped
    ended = _row(dead)
    assert ended.status == "failed" and ended.error == WORKER_LOST and ended.finished_at is not None
    assert not leases.finish(dead, "dead-worker", FIX_SEARCHES, status="succeeded")  # too late for it
    assert _row(live).status == "running" and _row(live).lease_owner == "live-worker"
    assert leases.finish(live, "live-worker", FIX_SEARCHES, status="succeeded")
