"""The concurrent session driver on the real servers: the read-then-write break of issue 50 (two
sessions laid out a second apart at speed 1, so the interleaving is the one logged: MariaDB 11.8's
innodb_snapshot_isolation fails T1's UPDATE with 1020, 10.11 commits it), and a cancel mid-trial
(a lock wait and a sleep) ends within a second with no thread or connection left."""

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests import ports
from tests.conftest import lab_provisioner
from upgradelab.measurement import (
    DriverBounds,
    DriverError,
    SessionLog,
    SessionOpener,
    log_sessions,
    run_sessions,
)
from upgradelab.measurement.querylog.formats import text_stream
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.provisioners.base import Endpoint
from upgradelab.targets.statement_timeout import StatementBound
from upgradelab.workloads.base import execute, scalar

# T1 reads, T2 updates the row and commits, then T1 updates the row it read (MariaDB's general log,
# as the servers write it: a second between steps)
READ_THEN_WRITE = """\
Time\t\t    Id Command\tArgument
261206  8:00:00\t    11 Connect\tapp@localhost on shop using TCP/IP
\t\t    12 Connect\tapp@localhost on shop using TCP/IP
\t\t    11 Query\tBEGIN
\t\t    11 Query\tSELECT v FROM c WHERE id = 1
261206  8:00:01\t    12 Query\tBEGIN
\t\t    12 Query\tUPDATE c SET v = v + 1 WHERE id = 1
\t\t    12 Query\tCOMMIT
261206  8:00:02\t    11 Query\tUPDATE c SET v = v + 1 WHERE id = 1
\t\t    11 Query\tCOMMIT
\t\t    11 Quit\t
\t\t    12 Quit\t
"""
# T1 writes before its read: on 11.8 the 1020 rolls that write back too (its COMMIT commits nothing)
WRITE_READ_THEN_WRITE = READ_THEN_WRITE.replace(
    "11 Query\tBEGIN\n", "11 Query\tBEGIN\n\t\t    11 Query\tUPDATE c SET v = v + 10 WHERE id = 2\n", 1
)


@pytest.fixture(scope="module", params=["mariadb-10.11", "mariadb-11.8"])
def server(request: pytest.FixtureRequest, database: None) -> Iterator[tuple[LocalProvisioner, Endpoint]]:
    provisioner = lab_provisioner(request.param, ports.UNIT_TARGETS[request.param], suffix="driver")
    try:
        endpoint = provisioner.start([])
        yield provisioner, endpoint
    finally:
        provisioner.stop()


def _opener(provisioner: LocalProvisioner, endpoint: Endpoint) -> SessionOpener:
    return SessionOpener(
        connect=lambda database: endpoint.connect(database, read_timeout_s=60),
        admin=lambda: endpoint.connect(timeout_s=5, read_timeout_s=30),
        flavor=provisioner.flavor,
    )


def _fresh_table(endpoint: Endpoint) -> None:
    admin = endpoint.connect()
    try:
        execute(
            admin,
            "CREATE DATABASE IF NOT EXISTS shop",
            "DROP TABLE IF EXISTS shop.c",
            "CREATE TABLE shop.c (id INT PRIMARY KEY, v INT) ENGINE = InnoDB",
            "INSERT INTO shop.c VALUES (1, 0), (2, 0)",
        )
    finally:
        admin.close()


def test_read_then_write_breaks_on_11_8_and_commits_on_10_11(
    server: tuple[LocalProvisioner, Endpoint],
) -> None:
    provisioner, endpoint = server
    _fresh_table(endpoint)
    log: SessionLog = log_sessions(text_stream(WRITE_READ_THEN_WRITE), "general")
    assert log.cut == [] and [len(s.statements) for s in log.sessions] == [5, 3]
    trial = run_sessions(log.sessions, _opener(provisioner, endpoint), speed=1, timeout_s=10)
    admin = endpoint.connect()
    version = str(scalar(admin, "SELECT VERSION()"))
    final = int(scalar(admin, "SELECT v FROM shop.c WHERE id = 1"))
    t1_first = int(scalar(admin, "SELECT v FROM shop.c WHERE id = 2"))  # T1's write before its read
    admin.close()
    assert trial.stopped is None and trial.sessions == 2
    assert len(trial.statements) == 8
    by_place = {(one.session, one.order): one for one in trial.statements}
    t1_update = by_place[0, 3]
    assert t1_update.fingerprint == "update c set v = v ? ? where id = ?"  # pt-query-digest's own
    assert 1.9 < t1_update.started_s < 3.0  # laid out as logged, at speed 1
    assert by_place[1, 1].rows == 1 and by_place[0, 2].rows == 1  # T2's update, T1's read
    assert all(one.latency_s is not None and one.latency_s >= 0 for one in trial.statements)
    if version.startswith("11.8"):
        assert t1_update.error_code == 1020
        assert (t1_update.error or "").startswith("Record has changed since last read in table 'c'")
        assert trial.errors == {1020: 1}
        assert final == 1  # T2's update only
        # 1020 rolled T1's transaction back (as a deadlock does, MDEV-35235): its first write is
        # gone, and its COMMIT, which returns OK, committed nothing: one transaction, T2's
        assert t1_first == 0
        assert trial.transactions == 1
    else:
        assert t1_update.error is None and t1_update.rows == 1
        assert trial.errors == {}
        assert final == 2 and t1_first == 10
        assert trial.transactions == 2
    assert trial.statements_per_s == pytest.approx(8 / trial.wall_s)
    assert trial.behind_s is not None and 0 <= trial.behind_s < 0.5  # kept the recorded pace
    assert 2.0 < trial.wall_s < 4.0


def _driver_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("session-")]


def test_cancel_mid_trial_stops_within_a_second_and_leaves_nothing(
    server: tuple[LocalProvisioner, Endpoint],
) -> None:
    provisioner, endpoint = server
    _fresh_table(endpoint)
    waits = """\
Time\t\t    Id Command\tArgument
261206  8:00:00\t    21 Connect\tapp@localhost on shop using TCP/IP
\t\t    22 Connect\tapp@localhost on shop using TCP/IP
\t\t    23 Connect\tapp@localhost on shop using TCP/IP
\t\t    21 Query\tBEGIN
\t\t    21 Query\tUPDATE c SET v = 5 WHERE id = 2
261206  8:00:01\t    22 Query\tUPDATE c SET v = 6 WHERE id = 2
\t\t    23 Query\tSELECT SLEEP(60)
261206  8:01:00\t    21 Query\tCOMMIT
"""
    log = log_sessions(text_stream(waits), "general")
    asked = threading.Event()
    timer = threading.Timer(2.0, asked.set)
    timer.start()
    started = time.monotonic()
    trial = run_sessions(
        log.sessions, _opener(provisioner, endpoint), speed=1, timeout_s=50, cancelled=asked.is_set
    )
    took = time.monotonic() - started
    assert trial.stopped == "cancelled"
    assert took < 3.2, took  # the cancel came at 2 s
    assert _driver_threads() == []
    admin = endpoint.connect()
    try:
        with admin.cursor() as cursor:
            cursor.execute(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID()"
                " AND COMMAND <> 'Daemon' AND USER <> 'system user' AND DB = 'shop'"
            )
            left = cursor.fetchone()[0]
        assert left == 0
        assert int(scalar(admin, "SELECT v FROM shop.c WHERE id = 2")) == 0  # T1's UPDATE rolled back
    finally:
        admin.close()
    # only what ended before the cancel is recorded: T1's BEGIN and UPDATE
    assert [(one.session, one.order) for one in trial.statements] == [(0, 0), (0, 1)], trial.statements


def test_bounds_are_named(server: tuple[LocalProvisioner, Endpoint]) -> None:
    provisioner, endpoint = server
    log = log_sessions(text_stream(READ_THEN_WRITE), "general")
    with pytest.raises(DriverError, match=r"2 sessions: a trial runs at most 1 at once \(max_sessions\)"):
        run_sessions(
            log.sessions,
            _opener(provisioner, endpoint),
            speed=1,
            timeout_s=5,
            bounds=DriverBounds(max_sessions=1),
        )
    with pytest.raises(DriverError, match=r"speed -1"):
        run_sessions(log.sessions, _opener(provisioner, endpoint), speed=-1, timeout_s=5)
    _fresh_table(endpoint)
    trial = run_sessions(
        log.sessions,
        _opener(provisioner, endpoint),
        speed=1,
        timeout_s=5,
        bounds=DriverBounds(max_duration_s=0.5),
    )
    assert trial.stopped == "duration" and trial.wall_s < 1.6 and _driver_threads() == []


def test_a_session_that_fails_stops_the_trial_and_is_raised(
    server: tuple[LocalProvisioner, Endpoint], monkeypatch: pytest.MonkeyPatch
) -> None:
    provisioner, endpoint = server
    _fresh_table(endpoint)
    stream = StatementBound.stream

    def failing(bound: StatementBound, sql: str, *args: Any, **kwargs: Any) -> Any:
        if sql.startswith("UPDATE"):
            raise RuntimeError("the driver's own fault")
        return stream(bound, sql, *args, **kwargs)

    monkeypatch.setattr(StatementBound, "stream", failing)
    log = log_sessions(text_stream(READ_THEN_WRITE), "general")
    with pytest.raises(DriverError, match="a session failed: RuntimeError") as raised:
        run_sessions(log.sessions, _opener(provisioner, endpoint), speed=0, timeout_s=5)
    assert isinstance(raised.value.__cause__, RuntimeError)
    assert _driver_threads() == []
