"""Sessions from hand-written sources: what the servers' own logs do not show in a short test
(history rows out of order and cut by the ring buffer, autocommit=0 units, a stray COMMIT) and
hostile input (100,000 sessions refused while reading, a statement flood, a log naming no session)."""

from collections.abc import Iterator

import pytest

from upgradelab.measurement import HistoryRow, SessionsError, history_sessions, log_sessions
from upgradelab.measurement.querylog.formats import text_stream
from upgradelab.measurement.sessions import log_time


class Lines:
    """A general log made line by line as it is read: how many lines were asked for."""

    def __init__(self, sessions: int) -> None:
        self.sessions, self.read = sessions, 0

    def __iter__(self) -> Iterator[str]:
        yield "Time\t\t    Id Command\tArgument\n"
        for thread in range(1, self.sessions + 1):
            for line in (
                f"\t\t{thread} Connect\tu@h on shop using TCP/IP\n",
                f"\t\t{thread} Query\tSELECT {thread}\n",
            ):
                self.read += 1
                yield line


def test_a_log_of_100000_sessions_is_refused_at_the_bound_while_read() -> None:
    log = Lines(100_000)
    with pytest.raises(SessionsError, match=r"more than 10,000 sessions \(max_sessions\)"):
        log_sessions(log, "general")  # type: ignore[arg-type]
    assert log.read <= 2 * 10_000 + 2  # stopped at the session past the bound, not at the log's end
    few = Lines(50)
    with pytest.raises(SessionsError, match=r"more than 20 sessions"):
        log_sessions(few, "general", max_sessions=20)  # type: ignore[arg-type]


def test_statement_and_text_bounds_name_themselves() -> None:
    text = "".join(f"240501 10:00:00\t     7 Query\tSELECT {n}\n" for n in range(30))
    with pytest.raises(SessionsError, match=r"more than 25 statements \(max_statements\) at line 26"):
        log_sessions(text_stream(text), "general", max_statements=25)
    with pytest.raises(SessionsError, match=r"max_chars"):
        log_sessions(text_stream(text), "general", max_chars=100)


def test_a_slow_log_naming_no_session_is_refused() -> None:
    text = "# Time: 2024-05-01T10:00:00.000000Z\n# Query_time: 0.1  Lock_time: 0.0\nSELECT 1;\n"
    with pytest.raises(SessionsError, match=r"line 1: the event names no session"):
        log_sessions(text_stream(text), "slow")


def test_autocommit_units_stray_commits_and_a_session_that_never_commits() -> None:
    text = (
        "2024-05-01T10:00:00.000000Z\t    3 Connect\tu@h on shop using TCP/IP\n"
        "2024-05-01T10:00:00.100000Z\t    3 Query\tCOMMIT\n"  # connected: a stray COMMIT, kept
        "2024-05-01T10:00:00.200000Z\t    3 Query\tSET autocommit = 0\n"
        "2024-05-01T10:00:00.300000Z\t    3 Query\tUPDATE c SET v = 1\n"
        "2024-05-01T10:00:00.400000Z\t    3 Query\tROLLBACK\n"
        "2024-05-01T10:00:00.500000Z\t    3 Query\tSELECT v FROM c\n"  # opens the next unit
        "2024-05-01T10:00:00.600000Z\t    4 Query\tUPDATE c SET v = 2\n"  # 4 began before the log
        "2024-05-01T10:00:00.700000Z\t    4 Query\tCOMMIT\n"
        "2024-05-01T10:00:00.800000Z\t    4 Query\tSELECT 4\n"
        "2024-05-01T10:00:01.000000Z\t    5 Connect\tu@h on shop using TCP/IP\n"
        "2024-05-01T10:00:01.100000Z\t    5 Query\tSTART TRANSACTION READ WRITE\n"
        "2024-05-01T10:00:01.200000Z\t    5 Query\tUPDATE c SET v = 5\n"
        "2024-05-01T10:00:01.300000Z\t    5 Quit\t\n"  # never commits, quits: the server rolled back
        "2024-05-01T10:00:01.400000Z\t    6 Connect\tu@h on shop using TCP/IP\n"
        "2024-05-01T10:00:01.500000Z\t    6 Query\tBEGIN\n"
        "2024-05-01T10:00:01.600000Z\t    6 Query\tCREATE TABLE x (a INT)\n"  # commits the BEGIN's
    )
    log = log_sessions(text_stream(text), "general")
    by = {one.thread_id: one for one in log.sessions}
    assert [s.sql for s in by[3].statements] == [
        "COMMIT",
        "SET autocommit = 0",
        "UPDATE c SET v = 1",
        "ROLLBACK",
    ]  # fmt: skip (the SELECT's unit never ends in the log: cut)
    assert [s.offset_s for s in by[3].statements] == pytest.approx(
        [0.0, 0.1, 0.2, 0.3], abs=1e-6
    )  # from the first statement
    assert [s.sql for s in by[4].statements] == ["SELECT 4"]
    assert [s.sql for s in by[5].statements] == ["START TRANSACTION READ WRITE", "UPDATE c SET v = 5"]
    assert by[5].quit and by[5].connected
    assert [s.transaction_end for s in by[6].statements] == [False, True]
    cut = [(part.thread_id, part.reason, part.orders) for part in log.cut]
    assert cut == [(3, "ends inside a transaction", [4]), (4, "starts inside a transaction", [0, 1])]
    assert log.transactions == 3  # 3's ROLLBACK, 4's SELECT, 6's implicit commit
    assert log.duration_s == pytest.approx(1.5)


def test_history_rows_in_any_order_and_cut_by_the_ring_buffer() -> None:
    ps = 10**12
    rows = [
        HistoryRow(thread_id=51, event_id=9, timer_start=3 * ps, sql_text="COMMIT"),
        HistoryRow(thread_id=51, event_id=8, timer_start=2 * ps, sql_text="UPDATE c SET v = 1 WHERE id = 1"),
        HistoryRow(
            thread_id=51, event_id=10, timer_start=4 * ps, sql_text="SELECT v FROM c", current_schema="shop"
        ),
        HistoryRow(thread_id=52, event_id=3, timer_start=1 * ps, sql_text="BEGIN"),
        HistoryRow(thread_id=52, event_id=4, timer_start=1 * ps + ps // 2, sql_text=None),  # a ping
        HistoryRow(thread_id=52, event_id=5, timer_start=5 * ps, sql_text="INSERT INTO c VALUES (9, 9)"),
        HistoryRow(thread_id=52, event_id=6, timer_start=6 * ps, sql_text="COMMIT"),
    ]
    log = history_sessions(rows)
    assert log.source == "history"
    by = {one.thread_id: one for one in log.sessions}
    assert [(s.sql, s.offset_s, s.line, s.database) for s in by[51].statements] == [
        ("SELECT v FROM c", 3.0, 10, "shop")
    ]
    assert [s.offset_s for s in by[52].statements] == [0.0, 4.0, 5.0]
    assert [(p.thread_id, p.reason, p.lines) for p in log.cut] == [
        (51, "starts inside a transaction", [8, 9])
    ]
    with pytest.raises(SessionsError, match=r"more than 1 sessions \(max_sessions\)"):
        history_sessions(rows, max_sessions=1)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("2024-05-01T10:00:00.250000Z", 1714557600.25),
        ("2024-05-01T12:00:00.250000+02:00", 1714557600.25),
        ("240501 10:00:00", 1714557600.0),
        ("240501  9:00:00", 1714554000.0),
        ("yesterday", None),
    ],
)
def test_log_times(text: str, seconds: float | None) -> None:
    assert log_time(text) == seconds


def test_a_slow_logs_quit_ends_its_session_whole() -> None:
    # MySQL with log_slow_admin_statements: the Quit after `SET timestamp=...;`, in the next record
    text = (
        "# Time: 2024-05-01T10:00:00.100000Z\n"
        "# User@Host: app[app] @ localhost [127.0.0.1]  Id:    31\n"
        "# Query_time: 0.000100  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0\n"
        "use shop;\nSET timestamp=1714557600;\nBEGIN;\n"
        "# Time: 2024-05-01T10:00:00.300000Z\n"
        "# User@Host: app[app] @ localhost [127.0.0.1]  Id:    31\n"
        "# Query_time: 0.000300  Lock_time: 0.000100 Rows_sent: 0  Rows_examined: 1\n"
        "SET timestamp=1714557600;\nUPDATE c SET v = 1 WHERE id = 1;\n"
        "# Time: 2024-05-01T10:00:00.400000Z\n"
        "# User@Host: app[app] @ localhost [127.0.0.1]  Id:    31\n"
        "# Query_time: 0.000001  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0\n"
        "SET timestamp=1714557600;\n# administrator command: Quit;\n"
    )
    log = log_sessions(text_stream(text), "slow")
    assert log.cut == []
    (session,) = log.sessions
    assert session.quit and session.thread_id == 31
    assert [(s.sql, s.database) for s in session.statements] == [
        ("BEGIN", "shop"),
        ("UPDATE c SET v = 1 WHERE id = 1", "shop"),
    ]
    assert [s.offset_s for s in session.statements] == pytest.approx([0.0, 0.2], abs=1e-6)
