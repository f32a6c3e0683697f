"""Article 004's lock-contention template: threads, the sys.innodb_lock_waits monitor, mutex deltas."""

from collections.abc import Iterator

import pytest

from tests.workloads.helpers import start_for
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.workloads import ServerSession
from upgradelab.workloads.lock_waits import DATABASE, LockWaits, LockWaitsParameters, top_mutex_deltas

SMALL = LockWaitsParameters(threads=4, rows=5, transactions=20, monitor="both", monitor_interval_s=0.0)


@pytest.fixture(scope="module")
def server(provisioner: LocalProvisioner) -> Iterator[ServerSession]:
    one, _ = start_for(provisioner, LockWaits(SMALL))
    yield one
    one.connection.close()


@pytest.mark.parametrize("group", ["monitor=off", "monitor=on"])
def test_every_thread_commits_its_updates_and_the_monitor_polls(server: ServerSession, group: str) -> None:
    workload = LockWaits(SMALL)
    workload.setup(server)
    [timing] = workload.iteration(server, 1, group)
    metrics = timing.metrics
    assert timing.statement == f"contention ({group})" and timing.elapsed_s > 0
    for n in range(1, 5):
        assert metrics[f"thread_{n}_trx"] == 20
        assert 0 < metrics[f"thread_{n}_s"] <= timing.elapsed_s
    assert (metrics["monitor_polls"] > 0) == (group == "monitor=on")
    with server.connection.cursor() as cursor:
        cursor.execute(f"SELECT SUM(value) FROM {DATABASE}.test")
        assert cursor.fetchone() == (80,)
    mutexes = [name for name in metrics if name.startswith("mutex_") and name.endswith("_ms")]
    assert len(mutexes) <= 5


def test_top_mutex_deltas_rank_by_wait_time_in_milliseconds() -> None:
    before = {"wait/synch/mutex/innodb/a": (1, 0), "wait/synch/mutex/innodb/b": (5, 1_000_000_000)}
    after = {"wait/synch/mutex/innodb/a": (3, 4_000_000_000), "wait/synch/mutex/innodb/b": (6, 2_000_000_000)}
    assert top_mutex_deltas(before, after) == [("a", 2, 4.0), ("b", 1, 1.0)]
