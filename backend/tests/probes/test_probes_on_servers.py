"""Each probe against each lab server (MariaDB 10.11, MySQL 9.7), started with a tiny buffer pool."""

import threading
import time
from collections.abc import Iterator

import pytest

from upgradelab.probes import ProbeSet, startup_options
from upgradelab.probes.base import fetch_all
from upgradelab.probes.buffer_pool import BufferPoolProbe, hit_rate
from upgradelab.probes.probe_set import Measured, workload_thread_id
from upgradelab.probes.statement_time import SETTLE_TIMEOUT_S, THREAD_STATE, StatementTimeProbe, idle
from upgradelab.targets.options import render_option
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.provisioners.base import Endpoint, ServerConnection
from upgradelab.workloads.base import timed

# 8 MiB pool (MySQL's minimum is 5 MiB) and a ~20 MiB table: a full scan cannot stay in memory.
SMALL_POOL = ["innodb_buffer_pool_size=8M"]
# 33 batches of 1000 rows of ~520 bytes. Batches, not INSERT ... SELECT doublings: those lock every
# source row in one transaction and MariaDB aborts when lock heaps fill most of an 8 MiB pool.
BATCHES, BATCH_ROWS = 33, 1000


def probe_lines(flavor: str) -> list[str]:
    return [render_option(name, value) for name, value in startup_options(flavor).items()]


def values(measured: Measured, probe: str) -> dict[str, float | None]:
    return {m.metric: m.value for m in measured.measurements if m.probe == probe and not m.subject}


@pytest.fixture(scope="module")
def server(provisioner: LocalProvisioner) -> Iterator[tuple[Endpoint, ServerConnection]]:
    """The target started with the probes' options, a small buffer pool and a table bigger than it."""
    endpoint = provisioner.start(probe_lines(provisioner.flavor) + SMALL_POOL)
    connection = endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("CREATE DATABASE probes")
        cursor.execute("USE probes")
        cursor.execute("CREATE TABLE big (id int AUTO_INCREMENT PRIMARY KEY, pad char(255), pad2 char(255))")
        batch = ", ".join(["(REPEAT('a', 255), REPEAT('b', 255))"] * BATCH_ROWS)
        for _ in range(BATCHES):
            cursor.execute(f"INSERT INTO big (pad, pad2) VALUES {batch}")
    yield endpoint, connection
    connection.close()
    provisioner.stop()


def test_hit_rate_falls_below_one_when_a_table_bigger_than_the_buffer_pool_is_scanned(
    server: tuple[Endpoint, ServerConnection],
) -> None:
    endpoint, connection = server
    probes = ProbeSet.open(endpoint, connection)
    try:
        with probes.around(1) as measured:
            timed(connection, "scan", "SELECT SUM(LENGTH(pad2)) FROM probes.big")
    finally:
        probes.close()
    pool = values(measured, "buffer_pool")
    assert pool["read_requests"] and pool["read_requests"] > 1000
    assert pool["reads"] and pool["reads"] > 0  # MySQL: read-ahead pages are not counted here
    assert pool["pages_read"] and pool["pages_read"] > 100
    assert pool["bytes_read"] and pool["bytes_read"] > 100 * 16384 / 2
    assert pool["hit_rate"] is not None and 0 <= pool["hit_rate"] < 1


def test_hit_rate_is_undefined_not_one_when_there_were_no_read_requests(
    server: tuple[Endpoint, ServerConnection],
) -> None:
    endpoint, _ = server
    probe_connection = endpoint.connect()
    probe = BufferPoolProbe()
    try:
        # Background threads may read a page now and then: find a quiet pair of readings.
        for _ in range(20):
            measured = {
                m.metric: m.value
                for m in probe.delta(probe.read(probe_connection), probe.read(probe_connection))
            }
            if measured["read_requests"] == 0:
                break
    finally:
        probe_connection.close()
    assert measured["read_requests"] == 0
    assert measured["hit_rate"] is None
    assert hit_rate(0, 0) is None
    assert hit_rate(200, 50) == 0.75
    assert hit_rate(100, 120) == 0.0


def test_statement_time_is_the_workload_threads_server_side_time_beside_the_client_side(
    server: tuple[Endpoint, ServerConnection],
) -> None:
    endpoint, connection = server
    probes = ProbeSet.open(endpoint, connection)
    try:
        assert "statement_time" not in probes.unavailable, probes.unavailable
        with probes.around(1) as measured:
            timings = [timed(connection, "sleep", "SELECT SLEEP(0.05)") for _ in range(3)]
            timings.append(timed(connection, "count", "SELECT COUNT(*) FROM probes.big"))
    finally:
        probes.close()
    statement = values(measured, "statement_time")
    client_s = sum(t.elapsed_s for t in timings)
    assert statement["statements"] == 4  # the probe's own statements run on another thread
    server_s = statement["server_s"]
    assert server_s is not None and 0.15 <= server_s <= 1.05 * client_s


def test_mutex_waits_are_reported_per_instrument_or_named_unavailable(
    server: tuple[Endpoint, ServerConnection], provisioner: LocalProvisioner
) -> None:
    endpoint, connection = server
    probes = ProbeSet.open(endpoint, connection)
    try:
        with probes.around(1) as measured:
            for n in range(20):
                timed(connection, "insert", f"INSERT INTO probes.big (pad, pad2) VALUES ('{n}', 'x')")
            timed(connection, "scan", "SELECT SUM(LENGTH(pad)) FROM probes.big")
    finally:
        probes.close()
    waits = [m for m in measured.measurements if m.probe == "mutex_waits"]
    if provisioner.flavor == "mysql":
        assert "mutex_waits" not in probes.unavailable, probes.unavailable
    if "mutex_waits" in probes.unavailable:
        assert waits == []
        assert "wait/synch/mutex/innodb" in probes.unavailable["mutex_waits"]
        return
    counts = {m.subject: m.value for m in waits if m.metric == "count"}
    wait_ms = {m.subject: m.value for m in waits if m.metric == "wait_ms"}
    assert counts and set(counts) == set(wait_ms)
    assert all(name.startswith("wait/synch/mutex/innodb/") for name in counts)
    assert sum(v or 0 for v in counts.values()) > 0
    assert sum(v or 0 for v in wait_ms.values()) > 0


def test_statement_time_counts_each_iterations_last_statement_in_that_iteration(
    server: tuple[Endpoint, ServerConnection],
) -> None:
    """The server sends a statement's OK before it ends the statement's event: a reading taken at once
    could miss the last statement, and the next iteration would get it (seen on MySQL 9.7: 2 of 200
    iterations read 1.15x the client's time). Article 001's shape, the statement probe alone (nothing
    else read before it), chained as a block is: every iteration has exactly its ten statements and
    a server time within the client's."""
    endpoint, connection = server
    with connection.cursor() as cursor:
        for table in range(5):
            cursor.execute(f"CREATE TABLE probes.settle{table} (id int AUTO_INCREMENT PRIMARY KEY, v int)")
    probes = ProbeSet.open(endpoint, connection, [StatementTimeProbe()])
    over: list[tuple[int, float | None, float]] = []
    try:
        for number in range(1, 201):
            with probes.around(number, after_previous=number > 1) as measured:
                timings = [
                    timed(connection, "insert", f"INSERT INTO probes.settle{t} (v) VALUES (1), (2)")
                    for t in range(5)
                ]
                timings += [timed(connection, "truncate", f"TRUNCATE probes.settle{t}") for t in range(5)]
            one = values(measured, "statement_time")
            client_s = sum(t.elapsed_s for t in timings)
            server_s = one["server_s"]
            # the count is the mechanism (a missed last statement makes 9, then 11); the time is only
            # a gross check: on this loaded 2-core host one iteration in 200 read 1.08x the client's
            if one["statements"] != 10 or server_s is None or server_s > 1.5 * client_s:
                over.append((number, server_s, client_s))
    finally:
        probes.close()
        with connection.cursor() as cursor:
            for table in range(5):
                cursor.execute(f"DROP TABLE probes.settle{table}")
    assert over == []


def test_an_idle_workload_thread_reads_idle_and_a_running_one_does_not(
    server: tuple[Endpoint, ServerConnection],
) -> None:
    """The settle rule (probes/statement_time.py `idle`) on the real server: a thread between
    statements shows 'Sleep' and no text once its last statement's event ended (otherwise every
    reading would wait out SETTLE_TIMEOUT_S), one running a statement does not."""
    endpoint, connection = server
    probe_connection = endpoint.connect()
    busy = endpoint.connect()
    try:
        timed(connection, "select", "SELECT 1")
        thread_id = workload_thread_id(probe_connection, connection)
        busy_id = workload_thread_id(probe_connection, busy)
        # idle within the bound once the statement's event ended (right after the OK it may not be yet:
        # MariaDB shows 'Query' until then), and stays idle while nothing is sent
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        rows = fetch_all(probe_connection, THREAD_STATE, (thread_id,))
        while not idle(rows) and time.monotonic() < deadline:
            rows = fetch_all(probe_connection, THREAD_STATE, (thread_id,))
        assert idle(rows), rows
        assert all(idle(fetch_all(probe_connection, THREAD_STATE, (thread_id,))) for _ in range(20))
        running = threading.Thread(target=timed, args=(busy, "sleep", "SELECT SLEEP(2)"))
        running.start()
        try:
            deadline = time.monotonic() + 1.5
            seen: list[list[tuple[object, ...]]] = []
            while time.monotonic() < deadline and not any(row and row[0][0] == "Query" for row in seen):
                seen.append(fetch_all(probe_connection, THREAD_STATE, (busy_id,)))
                time.sleep(0.01)
            assert seen and seen[-1] and seen[-1][0][0] == "Query", seen[-1:]
            assert not idle(seen[-1]), seen[-1]
        finally:
            running.join()
    finally:
        probe_connection.close()
        busy.close()


def test_probes_are_unavailable_with_the_reason_when_performance_schema_is_off(
    server: tuple[Endpoint, ServerConnection], provisioner: LocalProvisioner
) -> None:
    endpoint = provisioner.start([*probe_lines(provisioner.flavor), *SMALL_POOL, "performance_schema=OFF"])
    connection = endpoint.connect()
    probes = ProbeSet.open(endpoint, connection)
    try:
        with probes.around(1) as measured:
            timed(connection, "select", "SELECT 1")
    finally:
        probes.close()
        connection.close()
    assert probes.unavailable == {
        "mutex_waits": "performance_schema is OFF on this server",
        "statement_time": "performance_schema is OFF on this server",
    }
    assert {m.probe for m in measured.measurements} == {"buffer_pool"}
