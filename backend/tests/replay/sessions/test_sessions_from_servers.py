"""Sessions read from general and slow logs written by the real servers (MariaDB 10.11 and 11.8,
general_log and slow_query_log with long_query_time=0 at once, and MySQL 9.7), and from the
server's own events_statements_history_long: each statement in its session, in order, with its
offset; transactions whole; a session the logs caught mid-transaction (at their start or their end)
cut and listed."""

import time
from typing import Any

import pytest

from tests import ports
from tests.conftest import lab_provisioner
from upgradelab.measurement import HistoryRow, SessionLog, history_sessions, log_sessions
from upgradelab.measurement.querylog.formats import open_log
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.workloads.base import execute


def _run(connection: ServerConnection, *statements: str) -> None:
    for sql in statements:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            cursor.fetchall()


def _value(connection: ServerConnection, sql: str) -> Any:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()[0]


def _by_thread(log: SessionLog) -> dict[int, list[str]]:
    return {one.thread_id: [s.sql for s in one.statements] for one in log.sessions}


@pytest.mark.parametrize("name", ["mariadb-10.11", "mariadb-11.8", "mysql-9.7"])
def test_sessions_of_each_servers_logs(name: str, database: None) -> None:
    provisioner = lab_provisioner(name, ports.UNIT_TARGETS[name], suffix="sessions")
    inner = {kind: f"{provisioner.inner_dir}/{kind}.log" for kind in ("general", "slow")}
    files = {kind: provisioner.root / path.lstrip("/") for kind, path in inner.items()}
    try:
        endpoint = provisioner.start([])
        admin = endpoint.connect()
        execute(admin, "CREATE DATABASE shop", "CREATE TABLE shop.c (id INT PRIMARY KEY, v INT)")
        execute(admin, "INSERT INTO shop.c VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)")
        execute(admin, "SET GLOBAL long_query_time = 0")
        if provisioner.flavor == "mariadb":  # the verbose slow log: plans and EXPLAIN in its headers
            execute(admin, "SET GLOBAL log_slow_verbosity = 'query_plan,explain'")
        history = bool(int(_value(admin, "SELECT @@performance_schema")))
        if history:  # the statements' history too: its consumer on, its rows so far gone
            execute(
                admin,
                "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES'"
                " WHERE NAME LIKE 'events_statements_history%'",
            )
        before = endpoint.connect(database="shop")  # its transaction begins before the logs do
        _run(before, "BEGIN", "SELECT v FROM c WHERE id = 2")
        for path in files.values():
            path.unlink(missing_ok=True)
        if history:
            execute(admin, "TRUNCATE performance_schema.events_statements_history_long")
        execute(
            admin,
            f"SET GLOBAL general_log_file = '{inner['general']}'",
            f"SET GLOBAL slow_query_log_file = '{inner['slow']}'",
            "SET GLOBAL general_log = ON",
            "SET GLOBAL slow_query_log = ON",
        )
        _run(before, "SET SESSION long_query_time = 0")
        if provisioner.flavor == "mariadb":  # MariaDB's slow log is on per session, from its start
            _run(before, "SET SESSION slow_query_log = ON")
        a, b = endpoint.connect(database="shop"), endpoint.connect(database="shop")
        quits, ends_open = endpoint.connect(database="shop"), endpoint.connect(database="shop")
        connections = {"before": before, "a": a, "b": b, "quits": quits, "ends_open": ends_open}
        ids = {who: int(one.thread_id()) for who, one in connections.items()}  # type: ignore[no-untyped-call]
        # performance_schema's THREAD_ID of each connection id, read while they are open
        threads: dict[int, int] = {}
        if history:
            with admin.cursor() as cursor:
                cursor.execute("SELECT THREAD_ID, PROCESSLIST_ID FROM performance_schema.threads")
                threads = {int(row[0]): int(row[1]) for row in cursor.fetchall() if row[1] in ids.values()}
        _run(before, "UPDATE c SET v = v + 1 WHERE id = 2", "COMMIT")
        _run(a, "BEGIN", "SELECT v FROM c WHERE id = 1")
        time.sleep(1.1)  # a second apart: MariaDB stamps whole seconds
        _run(b, "SET autocommit = 0", "INSERT INTO c VALUES (10, 0)", "COMMIT", "SET autocommit = 1")
        _run(a, "UPDATE c SET v = v + 1\nWHERE id = 1", "COMMIT")
        _run(before, "SELECT v FROM c WHERE id = 2")
        _run(quits, "BEGIN", "UPDATE c SET v = v + 1 WHERE id = 4")
        quits.close()  # quits inside its transaction: the server rolls it back
        _run(ends_open, "BEGIN", "UPDATE c SET v = v + 1 WHERE id = 5")
        _run(a, "SELECT 1")  # the last slow-log entries are written before the logs stop
        time.sleep(0.2)
        rows: list[HistoryRow] = []
        if history:
            with admin.cursor() as cursor:
                cursor.execute(
                    "SELECT THREAD_ID, EVENT_ID, TIMER_START, SQL_TEXT, CURRENT_SCHEMA"
                    " FROM performance_schema.events_statements_history_long WHERE THREAD_ID IN %s",
                    [list(threads)],
                )
                # named here by connection id, as the logs name them
                rows = [
                    HistoryRow(
                        thread_id=threads[row[0]], event_id=row[1], timer_start=row[2], sql_text=row[3],
                        current_schema=row[4],
                    )
                    for row in cursor.fetchall()
                ]  # fmt: skip
        execute(admin, "SET GLOBAL general_log = OFF", "SET GLOBAL slow_query_log = OFF")
        for one in (before, a, b, ends_open):
            one.close()
        admin.close()
        logs: dict[str, SessionLog] = {}
        for kind, path in files.items():
            with open_log(path) as stream:
                logs[kind] = log_sessions(stream, kind)  # type: ignore[arg-type]
        if history:
            logs["history"] = history_sessions(reversed(rows))  # any order: read by EVENT_ID
    finally:
        provisioner.stop()
    assert not name.startswith("mysql") or "history" in logs  # performance_schema on by default
    for kind, log in logs.items():
        _check(kind, log, ids)


def _check(kind: str, log: SessionLog, ids: dict[str, int]) -> None:
    sessions = {one.thread_id: one for one in log.sessions}
    sql = _by_thread(log)
    # the session whose transaction began before the logs: its COMMIT and what came before it cut,
    # its session settings kept
    assert sql[ids["before"]][-1] == "SELECT v FROM c WHERE id = 2", kind
    assert all(one.startswith("SET SESSION") for one in sql[ids["before"]][:-1]), kind
    cut = {(part.thread_id, part.reason): part for part in log.cut}
    head = cut[ids["before"], "starts inside a transaction"]
    assert head.sample == "UPDATE c SET v = v + 1 WHERE id = 2" and len(head.orders) == 2, head
    # whole transactions, in order, the multi-line statement whole
    assert sql[ids["a"]] == [
        "SET NAMES utf8mb4", "BEGIN", "SELECT v FROM c WHERE id = 1", "UPDATE c SET v = v + 1\nWHERE id = 1",
        "COMMIT", "SELECT 1",
    ], kind  # fmt: skip
    a = sessions[ids["a"]].statements
    assert [s.boundary for s in a] == [None, "begin", None, None, "commit", None]
    assert [s.transaction_end for s in a] == [False, False, False, False, True, True]
    assert all(s.database == "shop" for s in a)
    b = sessions[ids["b"]].statements
    assert [s.sql for s in b][1:] == [
        "SET autocommit = 0",
        "INSERT INTO c VALUES (10, 0)",
        "COMMIT",
        "SET autocommit = 1",
    ]
    assert [s.transaction_end for s in b] == [False, False, False, True, False]
    # offsets from the logs' own times: b ran a second after a's first statements
    assert a[2].offset_s < b[1].offset_s - 0.5 < a[3].offset_s, (a, b)
    assert [s.offset_s for s in a] == sorted(s.offset_s for s in a)
    # a session that quit inside its transaction is whole where the log saw it quit (a general
    # log's Quit), cut where it did not (a slow log without admin commands)
    quits = sessions[ids["quits"]]
    if quits.quit:
        assert [s.sql for s in quits.statements][1:] == ["BEGIN", "UPDATE c SET v = v + 1 WHERE id = 4"], kind
    else:
        assert [s.sql for s in quits.statements] == ["SET NAMES utf8mb4"], kind
        assert cut[ids["quits"], "ends inside a transaction"].sample == "BEGIN"
    assert kind != "general" or quits.quit
    # a session still inside its transaction when the logs stopped: that transaction cut
    assert sql[ids["ends_open"]] == ["SET NAMES utf8mb4"], kind
    tail = cut[ids["ends_open"], "ends inside a transaction"]
    assert tail.sample == "BEGIN" and tail.orders == [1, 2], tail
    assert log.statements == sum(len(one.statements) for one in log.sessions)
