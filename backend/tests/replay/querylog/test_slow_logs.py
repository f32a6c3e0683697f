"""Slow logs of every dialect, read as pt-query-digest reads them (issue 47): MySQL 5.7, 8.0 with
log_slow_extra and log_timestamps=SYSTEM, Percona Server with log_slow_verbosity=full (its InnoDB
lines and `# No InnoDB statistics`), MariaDB with every verbosity (`# explain:`, bare `#`, an empty
`Schema:`, `# Time:` left out), RDS / Aurora (no host name), pt-query-digest's own `--output
slowlog`, and pt's edge cases (an admin command after `SET timestamp=`, a header-only event, a log
cut short, a server banner mid-log). The logs here are written for these tests in each dialect's
shape; each is checked against the installed pt-query-digest (pt_oracle.py: every event, its
database, header fields and fingerprint, and its classes), and its statements and fields are also
asserted as a DBA reads them."""

from pathlib import Path

import pytest

from tests.replay.querylog.pt_oracle import (
    PT_QUERY_DIGEST,
    event_mismatches,
    lab_classes,
    pt_classes,
    pt_events,
)
from upgradelab.measurement.pt_fingerprint import class_id
from upgradelab.measurement.querylog.events import LogEvent
from upgradelab.measurement.querylog.formats import detect_format, open_log, read_events, text_stream
from upgradelab.measurement.querylog.records import LogError, Records
from upgradelab.measurement.sources import parse_source

MYSQL_57 = """\
/usr/sbin/mysqld, Version: 5.7.44-log (MySQL Community Server (GPL)). started with:
Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock
Time                 Id Command    Argument
# Time: 2024-03-04T10:15:30.123456Z
# User@Host: app[app] @ web1 [10.0.0.7]  Id:    41
# Query_time: 1.204312  Lock_time: 0.000120 Rows_sent: 10  Rows_examined: 20480
use shop;
SET timestamp=1709547330;
SELECT o.id, o.total
FROM orders o
WHERE o.customer_id = 42
ORDER BY o.created_at DESC LIMIT 10;
# Time: 2024-03-04T10:15:31.000010Z
# User@Host: app[app] @ web1 [10.0.0.7]  Id:    41
# Query_time: 0.000031  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0
SET timestamp=1709547331;
# administrator command: Quit;
# Time: 2024-03-04T10:15:32.500000Z
# User@Host: report[report] @ web2 [10.0.0.9]  Id:    42
# Query_time: 3.500000  Lock_time: 0.100000 Rows_sent: 1  Rows_examined: 1000000
SET timestamp=1709547332,insert_id=7,last_insert_id=6;
INSERT INTO audit (who, what) VALUES ('report', 'sum');
"""

MYSQL_80_EXTRA = """\
# Time: 2024-03-04T11:15:30.123456+01:00
# User@Host: app[app] @ localhost []  Id:    12
# Query_time: 0.002000  Lock_time: 0.000010 Rows_sent: 3  Rows_examined: 3 Thread_id: 12 Errno: 0 \
Killed: 0 Bytes_received: 40 Bytes_sent: 120 Read_first: 1 Read_last: 0 Read_key: 1 Read_next: 3 \
Read_prev: 0 Read_rnd: 0 Read_rnd_next: 0 Sort_merge_passes: 0 Sort_range_count: 0 Sort_rows: 0 \
Sort_scan_count: 0 Created_tmp_disk_tables: 0 Created_tmp_tables: 0 Count_hit_tmp_table_size: 0 \
Start: 2024-03-04T11:15:30.121456+01:00 End: 2024-03-04T11:15:30.123456+01:00
use shop;
SET timestamp=1709547330;
SELECT * FROM items WHERE sku IN ('a', 'b', 'c');
# Time: 2024-03-04T11:15:30.200000+01:00
# User@Host: app[app] @ localhost []  Id:    12
# Query_time: 0.000100  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0 Thread_id: 12 Errno: 1146 \
Killed: 0 Bytes_received: 30 Bytes_sent: 60 Read_first: 0 Read_last: 0 Read_key: 0 Read_next: 0 Read_prev: 0 \
Read_rnd: 0 Read_rnd_next: 0 Sort_merge_passes: 0 Sort_range_count: 0 Sort_rows: 0 Sort_scan_count: 0 \
Created_tmp_disk_tables: 0 Created_tmp_tables: 0 Count_hit_tmp_table_size: 0 \
Start: 2024-03-04T11:15:30.199900+01:00 End: 2024-03-04T11:15:30.200000+01:00
SET timestamp=1709547330;
SELECT * FROM no_such_table WHERE id = 1;
"""

PERCONA_FULL = """\
# Time: 2024-03-04T10:00:00.000001Z
# User@Host: app[app] @ localhost []  Id:     7
# Schema: shop  Last_errno: 0  Killed: 0
# Query_time: 0.100000  Lock_time: 0.000050  Rows_sent: 5  Rows_examined: 500  Rows_affected: 0
# Bytes_sent: 320  Tmp_tables: 1  Tmp_disk_tables: 0  Tmp_table_sizes: 16384
# InnoDB_trx_id: 0
# QC_Hit: No  Full_scan: Yes  Full_join: No  Tmp_table: Yes  Tmp_table_on_disk: No
# Filesort: Yes  Filesort_on_disk: No  Merge_passes: 0
#   InnoDB_IO_r_ops: 2  InnoDB_IO_r_bytes: 32768  InnoDB_IO_r_wait: 0.000500
#   InnoDB_rec_lock_wait: 0.000000  InnoDB_queue_wait: 0.000000
#   InnoDB_pages_distinct: 9
# Log_slow_rate_type: query  Log_slow_rate_limit: 10
SET timestamp=1709546400;
SELECT status, COUNT(*) FROM orders GROUP BY status ORDER BY status ASC;
# Time: 2024-03-04T10:00:01.000001Z
# User@Host: app[app] @ localhost []  Id:     7
# Schema: shop  Last_errno: 0  Killed: 0
# Query_time: 0.000200  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 1  Rows_affected: 0
# Bytes_sent: 60  Tmp_tables: 0  Tmp_disk_tables: 0  Tmp_table_sizes: 0
# QC_Hit: No  Full_scan: No  Full_join: No  Tmp_table: No  Tmp_table_on_disk: No
# Filesort: No  Filesort_on_disk: No  Merge_passes: 0
# No InnoDB statistics available for this query
use db1;
SET timestamp=1709546401;
SELECT name FROM users WHERE id = 5;
# User@Host: app[app] @ localhost []  Id:     8
# Schema: shop  Last_errno: 0  Killed: 0
# Query_time: 0.000300  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 1  Rows_affected: 0
SET timestamp=1709546401;
SELECT name FROM users WHERE id = 6;
"""

MARIADB = """\
/usr/sbin/mariadbd, Version: 10.11.6-MariaDB-0+deb12u1-log (Debian 12). started with:
Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock
Time\t\t    Id Command\tArgument
# Time: 240304  9:05:03
# User@Host: app[app] @ localhost []
# Thread_id: 31  Schema: shop  QC_hit: No
# Query_time: 0.000103  Lock_time: 0.000030  Rows_sent: 1  Rows_examined: 3
# Rows_affected: 0  Bytes_sent: 63
# Tmp_tables: 1  Tmp_disk_tables: 0  Tmp_table_sizes: 0
# Pages_accessed: 1  Pages_read: 0  Pages_prefetched: 0  Pages_updated: 0  Old_rows_read: 0
# Pages_read_time: 0.0000  Engine_time: 0.0079
# Full_scan: Yes  Full_join: No  Tmp_table: Yes  Tmp_table_on_disk: No
# Filesort: No  Filesort_on_disk: No  Merge_passes: 0  Priority_queue: No
#
# explain: id\tselect_type\ttable\ttype\tpossible_keys\tkey\tkey_len\tref\trows\tr_rows\tfiltered\t\
r_filtered\tExtra
# explain: 1\tSIMPLE\tt\tindex\tPRIMARY\tPRIMARY\t4\tNULL\t3\t3.00\t100.00\t100.00\tUsing index
#
use `shop`;
SET timestamp=1709543103;
SELECT COUNT(*) FROM t WHERE id IN (1, 2, 3);
# User@Host: app[app] @ localhost []
# Thread_id: 31  Schema: shop  QC_hit: No
# Query_time: 0.000050  Lock_time: 0.000010  Rows_sent: 2  Rows_examined: 2
# Rows_affected: 0  Bytes_sent: 71
SET timestamp=1709543103;
SELECT id
FROM t

WHERE id > 1 ORDER BY id ASC;
# Time: 240304  9:05:04
# User@Host: batch[batch] @ localhost []
# Thread_id: 32  Schema:   QC_hit: No
# Query_time: 0.000020  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0
# Rows_affected: 0  Bytes_sent: 56
SET timestamp=1709543104;
SELECT 1;
# User@Host: app[app] @ localhost []
# Thread_id: 31  Schema: other  QC_hit: No
# Query_time: 0.000020  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0
# Rows_affected: 1  Bytes_sent: 52
use `other`;
SET timestamp=1709543104;
UPDATE v SET a = a + 1 WHERE b = 'x';
"""

RDS_AURORA = """\
# Time: 2024-03-04T12:00:00.000000Z
# User@Host: admin[admin] @  [172.31.5.10]  Id: 1234567
# Query_time: 0.012000  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: 1
use mysql;
SET timestamp=1709553600;
SELECT 1;
# Time: 2024-03-04T12:00:01.000000Z
# User@Host: rdsadmin[rdsadmin] @ localhost [127.0.0.1]  Id:     3
# Query_time: 0.000500  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0
SET timestamp=1709553601;
/* rds */ INSERT INTO mysql.rds_heartbeat2(id, value) values (1,1709553601000) \
ON DUPLICATE KEY UPDATE value = 1709553601000;
# Time: 2024-03-04T12:00:02.000000Z
# User@Host: app[app] @  [172.31.5.11]  Id: 1234568
# Query_time: 2.000000  Lock_time: 0.000000 Rows_sent: 100  Rows_examined: 5000000
use shop;
SET timestamp=1709553602;
SELECT * FROM orders WHERE created_at > '2024-01-01' LIMIT 100;
"""

# pt's own edge cases: a header-only event followed by another header (`/* No query */`), a `;`
# ending a line inside a string that a `#` line follows (pt cuts the statement there), a MySQL
# banner mid-log (after a restart), a statement `0`, and a log cut inside its last event
EDGES = """\
# Time: 2024-03-04T10:00:00.000000Z
# User@Host: app[app] @ localhost []  Id:     5
# Query_time: 0.000010  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0
SET timestamp=1709546400;
# Time: 2024-03-04T10:00:01.000000Z
# User@Host: app[app] @ localhost []  Id:     5
# Query_time: 0.000010  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0
SET timestamp=1709546401;
SELECT 'a;
# not a header' FROM dual;
# Time: 2024-03-04T10:00:02.000000Z
# User@Host: app[app] @ localhost []  Id:     5
# Query_time: 0.000010  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0
SET timestamp=1709546402;
SELECT 2;
/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:
Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock
Time                 Id Command    Argument
# Time: 2024-03-04T10:00:03.000000Z
# User@Host: app[app] @ localhost []  Id:     6
# Query_time: 0.000010  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0
SET timestamp=1709546403;
0;
# Time: 2024-03-04T10:00:04.000000Z
# User@Host: app[app] @ localhost []  Id:     6
# Query_time: 0.000010  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0
SET timestamp=1709546404;
SELECT 4;
# Time: 2024-03-04T10:00:05.000000Z
# User@Host: app[app] @ localhost []  Id:     6
# Query_time: 0.0000
"""

DIALECTS = {
    "mysql-5.7": MYSQL_57,
    "mysql-8.0-log_slow_extra": MYSQL_80_EXTRA,
    "percona-full": PERCONA_FULL,
    "mariadb-explain": MARIADB,
    "rds-aurora": RDS_AURORA,
    "pt-edges": EDGES,
}


def _events(text: str) -> list[LogEvent]:
    return list(read_events(text_stream(text), "slow"))


def _check_against_pt(log: Path) -> list[str]:
    with open_log(log) as stream:
        events = list(read_events(stream, "slow"))
    failures = event_mismatches(events, pt_events(log, "slow"), "slow", log)
    lab = lab_classes(events, "slow")
    theirs = {key: one["query_count"] for key, one in pt_classes(log, "slow").items()}
    if lab != theirs:
        failures.append(f"classes {lab}, pt-query-digest: {theirs}")
    return failures


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_each_dialect_reads_as_pt_query_digest_reads_it(name: str, tmp_path: Path) -> None:
    log = tmp_path / f"{name}.log"
    log.write_text(DIALECTS[name])
    assert detect_format(DIALECTS[name]) == "slow"
    assert _check_against_pt(log) == []


def test_pt_query_digests_own_slowlog_output_reads_as_it_reads_it(tmp_path: Path) -> None:
    import subprocess

    source = tmp_path / "percona.log"
    source.write_text(MARIADB + PERCONA_FULL + MYSQL_57)
    written = subprocess.run(
        [PT_QUERY_DIGEST, "--no-report", "--output", "slowlog", str(source)], capture_output=True, check=True
    ).stdout
    log = tmp_path / "pt-output.log"
    log.write_bytes(written)
    assert len(_events(written.decode())) == len(_events(source.read_text())) == 10
    assert _check_against_pt(log) == []


def test_every_header_line_is_a_header_and_the_statements_are_whole() -> None:
    statements = [e.text for e in _events(MARIADB) + _events(PERCONA_FULL) if e.command == "Query"]
    assert statements == [
        "SELECT COUNT(*) FROM t WHERE id IN (1, 2, 3)",
        "SELECT id\nFROM t\n\nWHERE id > 1 ORDER BY id ASC",
        "SELECT 1",
        "UPDATE v SET a = a + 1 WHERE b = 'x'",
        "SELECT status, COUNT(*) FROM orders GROUP BY status ORDER BY status ASC",
        "SELECT name FROM users WHERE id = 5",
        "SELECT name FROM users WHERE id = 6",
    ]
    parsed = parse_source(MARIADB + PERCONA_FULL, allow_writes=True)
    assert parsed.total == 7 and not [
        s for s in parsed.statements if s.sql.startswith(("#", "SET timestamp"))
    ]


def test_the_database_is_use_then_schema_then_the_previous_events() -> None:
    assert [e.database for e in _events(PERCONA_FULL)] == ["shop", "db1", "shop"]
    # MariaDB: `use `shop`;` (backquotes off), Schema: shop, an empty Schema (inherited), `use `other`;`
    assert [e.database for e in _events(MARIADB)] == ["shop", "shop", "shop", "other"]
    assert [(s.database, s.sql) for s in parse_source(PERCONA_FULL).statements][1] == (
        "db1",
        "SELECT name FROM users WHERE id = 5",
    )


def test_an_event_keeps_its_thread_time_and_header_fields() -> None:
    first, quit_, insert = _events(MYSQL_57)
    assert (first.thread_id, first.time, first.user, first.host, first.ip) == (
        41,
        "2024-03-04T10:15:30.123456Z",
        "app",
        "web1",
        "10.0.0.7",
    )
    assert (first.query_time, first.lock_time, first.rows_sent, first.rows_examined, first.timestamp) == (
        1.204312,
        0.00012,
        10,
        20480,
        1709547330,
    )
    assert (quit_.command, quit_.text, quit_.thread_id) == ("Admin", "administrator command: Quit", 41)
    assert insert.headers["insert_id"] == "7" and insert.headers["last_insert_id"] == "6"
    mariadb = _events(MARIADB)
    assert [e.time for e in mariadb] == [
        "240304  9:05:03",
        "240304  9:05:03",
        "240304  9:05:04",
        "240304  9:05:04",
    ]
    assert [e.thread_id for e in mariadb] == [31, 31, 32, 31]
    assert mariadb[0].headers["Pages_accessed"] == "1" and mariadb[0].headers["Full_scan"] == "Yes"
    assert mariadb[0].number("Full_scan") is None and mariadb[3].rows_affected == 1
    extra = _events(MYSQL_80_EXTRA)[0]
    assert extra.time == "2024-03-04T11:15:30.123456+01:00" and extra.headers["Start"].endswith(
        "121456+01:00"
    )
    assert _events(RDS_AURORA)[0].host == "172.31.5.10"  # no host name: the address, as pt


def test_pt_edges_are_read_as_pt_reads_them() -> None:
    events = _events(EDGES)
    assert [(e.command, e.text) for e in events] == [
        ("Query", "/* No query */"),  # SET timestamp only, then the next event's header
        ("Query", "SELECT 'a"),  # pt cuts at `;` + newline + `#`, inside the string
        ("Query", "/* No query */"),  # ... and reads the rest, `# not a header' ...`, as a header
        ("Query", "SELECT 2"),  # the banner after it removed
        ("Query", "SELECT 4"),  # `0` is no statement for pt; the cut last event is dropped
    ]
    # nothing of these is replayed as a header line; the cut statement is replayed as logged
    assert [s.sql for s in parse_source(EDGES).statements] == ["SELECT 'a", "SELECT 2", "SELECT 4"]


def test_a_mariadbd_banner_mid_log_is_a_banner() -> None:
    """pt-query-digest 3.2.1 knows `mysqld, Version:` only: after a MariaDB restart mid-log it reads
    the banner and the next event's header into the statement before; here it is removed."""
    restarted = MARIADB.replace("SELECT 1;\n", "SELECT 1;\n" + "\n".join(MARIADB.splitlines()[:3]) + "\n")
    assert [e.text for e in _events(restarted)] == [e.text for e in _events(MARIADB)]


def test_each_class_id_is_the_tail_of_pt_query_digests_id(tmp_path: Path) -> None:
    log = tmp_path / "all.log"
    log.write_text(MARIADB + "".join(text for text in DIALECTS.values() if text is not MARIADB))
    classes = pt_classes(log, "slow")
    parsed = parse_source(log.read_text(), allow_writes=True)
    for statement in parsed.statements:
        whole = next(key for key, one in classes.items() if one["fingerprint"] == statement.fingerprint)
        assert (
            statement.fingerprint_id == statement.class_id == whole[-16:] == class_id(statement.fingerprint)
        )


def test_a_log_that_never_separates_is_refused_past_the_bound() -> None:
    records = Records(text_stream("# Query_time: 1\nSELECT '" + "x" * 5000), block_chars=64, max_chars=1000)
    with pytest.raises(LogError, match="line 1: an entry of more than 1,000 characters"):
        records.read(";\n#")
