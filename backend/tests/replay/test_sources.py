"""Query sources: the three formats, default databases, fingerprints, sampling and read-only mode
(no server: the slow log captured from a real server is in test_replay_on_servers.py)."""

import pytest

from upgradelab.measurement.fingerprint import fingerprint, is_read_only
from upgradelab.measurement.sources import SourceError, parse_source

# MySQL 8+/9 writes ISO times; MariaDB `YYMMDD hh:mm:ss`, blank when unchanged; continuation lines
GENERAL_MYSQL = """/usr/sbin/mysqld, Version: 9.7.4 (Debian). started with:
Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock
Time                 Id Command    Argument
2026-11-22T12:00:00.000001Z\t   11 Connect\tapp@localhost on shop using TCP/IP
2026-11-22T12:00:00.000002Z\t   11 Query\tSELECT * FROM orders WHERE id = 1
2026-11-22T12:00:00.000003Z\t   12 Connect\tapp@localhost on  using TCP/IP
2026-11-22T12:00:00.000004Z\t   12 Init DB\tcrm
2026-11-22T12:00:00.000005Z\t   12 Query\tSELECT name
FROM people
WHERE id IN (1, 2, 3)
2026-11-22T12:00:00.000006Z\t   11 Query\tSELECT * FROM orders WHERE id = 2
2026-11-22T12:00:00.000007Z\t   11 Query\tDELETE FROM orders WHERE id = 3
2026-11-22T12:00:00.000008Z\t   11 Quit\t
"""
GENERAL_MARIADB = """261122 12:00:00\t     5 Connect\tapp@localhost as anonymous on shop
\t\t     5 Query\tSELECT COUNT(*) FROM orders
261122 12:00:01\t     5 Query\tuse crm
\t\t     5 Query\tSELECT 1 FROM people
"""
PLAIN = """-- a comment
SELECT * FROM t WHERE a = 'x;y';
USE other;
SELECT * FROM t WHERE a = 'z';
INSERT INTO t VALUES (1);
"""


def test_mysql_general_log_keeps_each_threads_database_and_multiline_queries() -> None:
    parsed = parse_source(GENERAL_MYSQL)
    assert parsed.format == "general"
    assert [(s.database, s.sql.split()[0:2]) for s in parsed.statements] == [
        ("shop", ["SELECT", "*"]),
        ("crm", ["SELECT", "name"]),
        ("shop", ["SELECT", "*"]),
    ]
    assert parsed.statements[1].fingerprint == "select name from people where id in(?+)"
    assert [s.kind for s in parsed.skipped_writes] == ["delete"]


def test_mariadb_general_log_with_blank_times_and_use() -> None:
    parsed = parse_source(GENERAL_MARIADB)
    assert parsed.format == "general"
    assert [(s.database, s.sql) for s in parsed.statements] == [
        ("shop", "SELECT COUNT(*) FROM orders"),
        ("crm", "SELECT 1 FROM people"),
    ]


def test_plain_sql_split_by_sqlparse_with_use() -> None:
    parsed = parse_source(PLAIN)
    assert parsed.format == "sql"
    assert [(s.database, s.sql) for s in parsed.statements] == [
        (None, "SELECT * FROM t WHERE a = 'x;y'"),
        ("other", "SELECT * FROM t WHERE a = 'z'"),
    ]
    assert len({s.fingerprint_id for s in parsed.statements}) == 1
    assert parse_source(PLAIN, allow_writes=True).statements[-1].kind == "insert"


def test_sampling_keeps_at_most_n_per_fingerprint() -> None:
    text = "".join(f"SELECT * FROM t WHERE id = {i};\nSELECT {i};\n" for i in range(25))
    parsed = parse_source(text, sample=3)
    assert parsed.total == 50 and parsed.classes == 2 and len(parsed.statements) == 6


def test_fingerprint_normalizes_literals_lists_case_comments_and_quotes() -> None:
    a = fingerprint("SELECT * FROM `Orders` WHERE id IN (1,2,3) AND note = 'it''s' /* x */ LIMIT 10")
    b = fingerprint('select *\n from orders where ID in ( 7 ) and note = "n" limit 5;')
    assert a == b == "select * from orders where id in(?+) and note = ? limit ?"
    assert fingerprint("INSERT INTO t VALUES (1, 'a'), (2, 'b')") == "insert into t values(?+)"
    assert fingerprint("SELECT COUNT(*), CONCAT(a,b) FROM t") == "select count (*), concat (a, b) from t"


@pytest.mark.parametrize(
    ("sql", "read_only"),
    [
        ("SELECT 1", True),
        ("WITH x AS (SELECT 1) SELECT * FROM x", True),
        ("SHOW TABLES", True),
        ("SELECT * FROM t FOR UPDATE", False),
        ("SELECT a INTO @v FROM t", False),
        ("UPDATE t SET a = 1", False),
        ("CALL p()", False),
        ("SET GLOBAL x = 1", False),
    ],
)
def test_read_only_classification(sql: str, read_only: bool) -> None:
    assert is_read_only(sql) is read_only


def test_only_writes_is_an_error_naming_them() -> None:
    with pytest.raises(SourceError, match="2 writes skipped"):
        parse_source("DELETE FROM t; UPDATE t SET a = 1;")
