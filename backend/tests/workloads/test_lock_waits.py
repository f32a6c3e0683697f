"""Article 004's lock-contention template: threads, the sys.innodb_lock_waits monitor, and its mutex
wait deltas, which the mutex_waits probe measures (stored once, as probe samples)."""

from collections.abc import Iterator

import pytest

from tests.workloads.helpers import start_for
from upgradelab.probes import ProbeSet
from upgradelab.probes.mutex_waits import MutexWaitsProbe
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.workloads import ServerSession
from upgradelab.workloads.lock_waits import DATABASE, LockWaits, LockWaitsParameters

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
    assert not [name for name in metrics if name.startswith("mutex_")]  # the probe's, not the template's


def test_the_mutex_waits_probe_measures_the_contention_with_the_monitor_on(server: ServerSession) -> None:
    workload = LockWaits(SMALL)
    workload.setup(server)
    probes = ProbeSet.open(server.endpoint, server.connection, [MutexWaitsProbe()])
    try:
        assert probes.unavailable == {}
        with probes.around(1) as measured:
            workload.iteration(server, 1, "monitor=on")
    finally:
        probes.close()
    waited = {m.subject: m.value or 0.0 for m in measured.measurements if m.metric == "wait_ms"}
    counts = {m.subject: m.value or 0.0 for m in measured.measurements if m.metric == "count"}
    assert waited and set(waited) == set(counts), measured.measurements
    assert all(name.startswith("wait/synch/mutex/innodb/") for name in waited)
    assert all(counts[name] > 0 or waited[name] > 0 for name in waited)
    # 4 threads x 20 commits and a monitor polling all the while: the transaction system's mutex waits
    assert any("trx" in name and counts[name] > 0 for name in counts), counts
