"""General logs of MySQL and MariaDB, read as pt-query-digest reads them (issue 47): both time
formats (ISO with `Z` or an offset, MariaDB's `YYMMDD h:mm:ss` left blank while unchanged),
Connect / Init DB / Query / Prepare / Execute / Close stmt / Quit, multi-line statements, a refused
Connect; each statement with its thread, time and default database. Checked against the installed
pt-query-digest (pt_oracle.py), and where the lab reads more than pt (a `USE` query changes the
thread's database; an Execute keeps its statement's every line), asserted as a session had it."""

from pathlib import Path

import pytest

from tests.replay.querylog.pt_oracle import event_mismatches, lab_classes, pt_classes, pt_events
from upgradelab.measurement.querylog.events import LogEvent
from upgradelab.measurement.querylog.formats import detect_format, open_log, read_events, text_stream
from upgradelab.measurement.sources import parse_source

MYSQL = """\
/usr/sbin/mysqld, Version: 8.4.3 (MySQL Community Server - GPL). started with:
Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock
Time                 Id Command    Argument
2024-03-04T10:00:00.000001+02:00\t   11 Connect\tapp@localhost on shop using TCP/IP
2024-03-04T10:00:00.000002+02:00\t   11 Query\tSET NAMES utf8mb4
2024-03-04T10:00:00.000003+02:00\t   11 Query\tSELECT name
FROM people

WHERE id IN (1, 2, 3)
2024-03-04T10:00:00.000004+02:00\t   12 Connect\treport@10.0.0.9 on  using TCP/IP
2024-03-04T10:00:00.000005+02:00\t   12 Init DB\tcrm
2024-03-04T10:00:00.000006+02:00\t   12 Query\tSELECT COUNT(*) FROM accounts
2024-03-04T10:00:00.000007+02:00\t   11 Prepare\tSELECT name FROM people WHERE id = ?
2024-03-04T10:00:00.000008+02:00\t   11 Execute\tSELECT name FROM people WHERE id = 7
2024-03-04T10:00:00.000009+02:00\t   11 Close stmt\t
2024-03-04T10:00:00.000010+02:00\t   11 Prepare\tSELECT id
FROM people WHERE name = ?
2024-03-04T10:00:00.000011+02:00\t   11 Execute\tSELECT id
FROM people WHERE name = 'ann'
2024-03-04T10:00:00.000012+02:00\t   11 Query\tDELETE FROM people WHERE id = 3
2024-03-04T10:00:00.000013+02:00\t   13 Connect\tAccess denied for user 'x'@'localhost' (using password: YES)
2024-03-04T10:00:00.000014+02:00\t   11 Quit\t
2024-03-04T10:00:00.000015+02:00\t   12 Quit\t
"""

MARIADB = """\
/usr/sbin/mariadbd, Version: 11.8.3-MariaDB-1 from Debian (-- Please help get to 10k stars). started with:
Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock
Time\t\t    Id Command\tArgument
240304 10:00:00\t     5 Connect\tapp@localhost as anonymous on shop
\t\t     5 Query\tSELECT COUNT(*) FROM orders
\t\t     6 Connect\tbatch@localhost as anonymous on\x20
240304 10:00:01\t     6 Query\tSELECT 1
\t\t     5 Init DB\tcrm
\t\t     5 Query\tSELECT 1 FROM people
240304 10:00:02\t     5 Quit\t
"""

# a `USE` query: the session's database changes (pt keeps the thread's Connect / Init DB one)
USE_QUERY = """\
2024-03-04T10:00:00.000001Z\t   21 Connect\tapp@localhost on shop using TCP/IP
2024-03-04T10:00:00.000002Z\t   21 Query\tSELECT 1 FROM t
2024-03-04T10:00:00.000003Z\t   21 Query\tuse `crm`
2024-03-04T10:00:00.000004Z\t   21 Query\tSELECT 2 FROM people
2024-03-04T10:00:00.000005Z\t   22 Connect\tapp@localhost on  using TCP/IP
2024-03-04T10:00:00.000006Z\t   22 Query\tSELECT 3 FROM other.v
"""

LOGS = {"mysql": MYSQL, "mariadb": MARIADB, "use-query": USE_QUERY}


def _events(text: str) -> list[LogEvent]:
    return list(read_events(text_stream(text), "general"))


@pytest.mark.parametrize("name", sorted(LOGS))
def test_each_general_log_reads_as_pt_query_digest_reads_it(name: str, tmp_path: Path) -> None:
    log = tmp_path / f"{name}.log"
    log.write_text(LOGS[name])
    assert detect_format(LOGS[name]) == "general"
    with open_log(log) as stream:
        events = list(read_events(stream, "general"))
    assert event_mismatches(events, pt_events(log, "general"), "general", log) == []
    assert lab_classes(events, "general") == {
        k: v["query_count"] for k, v in pt_classes(log, "general").items()
    }


def test_statements_keep_their_thread_time_and_database() -> None:
    statements = [
        (e.command, e.thread_id, e.time, e.database, e.text) for e in _events(MYSQL) if e.is_statement
    ]
    assert statements == [
        ("Query", 11, "2024-03-04T10:00:00.000002+02:00", "shop", "SET NAMES utf8mb4"),
        (
            "Query",
            11,
            "2024-03-04T10:00:00.000003+02:00",
            "shop",
            "SELECT name\nFROM people\n\nWHERE id IN (1, 2, 3)",
        ),
        ("Query", 12, "2024-03-04T10:00:00.000006+02:00", "crm", "SELECT COUNT(*) FROM accounts"),
        ("Execute", 11, "2024-03-04T10:00:00.000008+02:00", "shop", "SELECT name FROM people WHERE id = 7"),
        (
            "Execute",
            11,
            "2024-03-04T10:00:00.000011+02:00",
            "shop",
            "SELECT id\nFROM people WHERE name = 'ann'",
        ),
        ("Query", 11, "2024-03-04T10:00:00.000012+02:00", "shop", "DELETE FROM people WHERE id = 3"),
    ]
    mariadb = [(e.command, e.thread_id, e.time, e.database) for e in _events(MARIADB)]
    assert mariadb == [
        ("Connect", 5, "240304 10:00:00", "shop"),
        ("Query", 5, "240304 10:00:00", "shop"),  # a blank time: the one before
        ("Connect", 6, "240304 10:00:00", None),
        ("Query", 6, "240304 10:00:01", None),
        ("Init DB", 5, "240304 10:00:01", "crm"),
        ("Query", 5, "240304 10:00:01", "crm"),
        ("Quit", 5, "240304 10:00:02", "crm"),
    ]


def test_a_use_query_changes_the_sessions_database() -> None:
    assert [(e.thread_id, e.database) for e in _events(USE_QUERY) if e.command == "Query"] == [
        (21, "shop"),
        (21, "crm"),
        (21, "crm"),
        (22, None),  # no database: not the previous event's, as pt would give it
    ]


def test_a_replay_takes_queries_and_executed_statements_with_their_databases() -> None:
    parsed = parse_source(MYSQL, allow_writes=True)
    assert [(s.database, s.kind, s.sql) for s in parsed.statements] == [
        ("shop", "set", "SET NAMES utf8mb4"),
        ("shop", "select", "SELECT name\nFROM people\n\nWHERE id IN (1, 2, 3)"),
        ("crm", "select", "SELECT COUNT(*) FROM accounts"),
        ("shop", "select", "SELECT name FROM people WHERE id = 7"),
        ("shop", "select", "SELECT id\nFROM people WHERE name = 'ann'"),
        ("shop", "delete", "DELETE FROM people WHERE id = 3"),
    ]
    assert [s.sql for s in parse_source(USE_QUERY).statements] == [
        "SELECT 1 FROM t",
        "SELECT 2 FROM people",
        "SELECT 3 FROM other.v",
    ]
