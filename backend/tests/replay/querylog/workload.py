"""A seeded session for the real servers' logs: statements of every shape a slow or general log
must keep whole (literals of every kind, comments, multi-line text with blank lines, IN lists,
UNIONs, ORDER BY ... ASC, LIMIT forms, a non-ASCII string, writes, a failing statement, `USE`,
CALL), the client's own commands (Init DB, Ping) and prepared statements, both the binary
protocol's (COM_STMT_PREPARE / EXECUTE / CLOSE: the general log's Prepare, Execute and Close stmt)
and SQL's PREPARE / EXECUTE.

`run_session` returns each statement as the server logs it, in order (a binary-protocol execution:
the statement with its value in place of `?`), so a test can check a log's statements against what
ran, besides against pt-query-digest. Its last statement, SENTINEL, is not among them: a server
writes a statement's slow-log entry after the client has its answer, so the entry of a session's
last statement may still be missing when the log is switched off; the next statement starts only
once it is written."""

import random
import struct
from typing import Any

import pymysql
from pymysql.constants import COMMAND

from upgradelab.targets.provisioners.base import ServerConnection

SETUP = [
    "CREATE DATABASE IF NOT EXISTS shop",
    "CREATE DATABASE IF NOT EXISTS other",
    "CREATE TABLE IF NOT EXISTS shop.t "
    "(id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(8,2), k INT, KEY (k))",
    "CREATE TABLE IF NOT EXISTS other.v (a INT, b VARCHAR(10))",
    "DELETE FROM shop.t",
    "INSERT INTO shop.t VALUES (1, 'a', 1.5, 1), (2, 'b', -2, 1), (3, 'it''s', 0, 2), (4, 'x', NULL, 3)",
    "DROP PROCEDURE IF EXISTS shop.p",
    "CREATE PROCEDURE shop.p(x INT) SELECT x + 1 AS y",
]
SENTINEL = "DO 0"
_LITERALS = [
    "1",
    "-1",
    "2.5",
    "0x1F",
    "'a'",
    "'it''s'",
    "'a\\'b'",
    "NULL",
    "TRUE",
    "false",
    "'x;y'",
    "'Ünï'",
    "1e3",
]


def _statements(rng: random.Random) -> list[str]:
    """The session's statements on `shop` (then `other`, then `shop` again), seeded."""

    def lit() -> str:
        return rng.choice(_LITERALS)

    ids = ", ".join(str(rng.randint(1, 9)) for _ in range(rng.randint(2, 6)))
    return [
        f"SELECT COUNT(*) FROM t WHERE id IN ({ids})",
        f"SELECT id, name\nFROM t\n\nWHERE price > {rng.randint(-5, 5)}\nORDER BY name ASC, id ASC",
        f"SELECT /* a comment */ name FROM t WHERE name = {lit()} LIMIT {rng.randint(1, 5)}, 2",
        f"SELECT id FROM t WHERE k = {rng.randint(1, 3)} -- trailing comment",
        f"SELECT id FROM t WHERE k = {rng.randint(1, 3)} # hash comment",
        f"SELECT /*!40001 SQL_NO_CACHE */ id FROM t WHERE id = {rng.randint(1, 4)}",
        f"SELECT {lit()}, {lit()}, {lit()} FROM t LIMIT 1",
        "SELECT id FROM t WHERE id = 1 UNION SELECT id FROM t WHERE id = 2 UNION ALL "
        "SELECT id FROM t WHERE id = 3",
        f"SELECT name FROM t WHERE name LIKE 'Ü%' OR id = {rng.randint(1, 4)} "
        "ORDER BY id DESC LIMIT 2 OFFSET 1",
        f"  SELECT SUM(price)\n\tFROM t\n  GROUP BY k HAVING COUNT(*) > {rng.randint(0, 1)}",
        f"UPDATE t SET price = price + {rng.randint(1, 3)} WHERE id = {rng.randint(1, 4)}",
        f"INSERT INTO t (id, name, price, k) VALUES ({rng.randint(100, 199)}, {lit()}, 1, 1), "
        f"({rng.randint(200, 299)}, 'q', 2, 2)",
        f"DELETE FROM t WHERE id >= {rng.randint(100, 150)}",
        "SELECT no_such_column FROM t",
        f"CALL p({rng.randint(1, 9)})",
        f"SET @v = {rng.randint(1, 9)}",
        "USE other",
        f"SELECT a FROM v WHERE b = {lit()}",
        "USE shop",
        f"SELECT id FROM t WHERE id = {rng.randint(1, 4)}",
    ]


def _read_result(connection: Any) -> None:
    """Read one response of the binary protocol (an OK, or a result set to its last EOF); the
    connection's own packet reader (pymysql has no binary-protocol client)."""
    first = connection._read_packet()
    if first.is_ok_packet():
        return
    columns = first.read_length_encoded_integer()
    for _ in range(columns):
        connection._read_packet()
    connection._read_packet()  # EOF after the columns
    while not connection._read_packet().is_eof_packet():
        pass


def _prepared(connection: Any, sql: str, values: list[int]) -> None:
    """Prepare `sql` (its `?` marks), execute it with integer `values`, close it: COM_STMT_*."""
    connection._execute_command(COMMAND.COM_STMT_PREPARE, sql)
    ok = connection._read_packet()
    if ok.is_error_packet():
        ok.raise_for_error()
    data = ok.get_all_data()
    statement_id, columns, params = struct.unpack("<IHH", data[1:9])
    for count in (params, columns):
        if count:
            for _ in range(count + 1):  # the definitions, then an EOF
                connection._read_packet()
    payload = struct.pack("<IBI", statement_id, 0, 1)
    if values:
        payload += bytes((len(values) + 7) // 8) + b"\x01"
        payload += b"".join(struct.pack("<H", 8) for _ in values)  # MYSQL_TYPE_LONGLONG
        payload += b"".join(struct.pack("<q", value) for value in values)
    connection._execute_command(COMMAND.COM_STMT_EXECUTE, payload)
    _read_result(connection)
    connection._execute_command(COMMAND.COM_STMT_CLOSE, struct.pack("<I", statement_id))


def run_session(app: ServerConnection, seed: int) -> list[str]:
    """Run the seeded session on `app` (connected to `shop`): its statements (a failing one's error
    ignored), an Init DB and a Ping, a binary-protocol prepared SELECT executed twice, and SQL's
    PREPARE / EXECUTE / DEALLOCATE. Returns every statement as the server logs it, in order."""
    rng = random.Random(seed)
    ran: list[str] = []
    for sql in _statements(rng):
        with app.cursor() as cursor:
            try:
                cursor.execute(sql)
                cursor.fetchall()
            except pymysql.MySQLError:
                pass
        ran.append(sql)
    app.select_db("shop")  # COM_INIT_DB: "Init DB" in the general log, an admin command in MySQL's slow log
    app.ping(reconnect=False)
    for value in (rng.randint(1, 4), rng.randint(1, 4)):
        _prepared(app, "SELECT name FROM t WHERE id = ?", [value])
        ran.append(f"SELECT name FROM t WHERE id = {value}")
    for sql in (
        "PREPARE s FROM 'SELECT id FROM t WHERE k = ?'",
        "SET @k = 2",
        "EXECUTE s USING @k",
        "DEALLOCATE PREPARE s",
    ):
        with app.cursor() as cursor:
            cursor.execute(sql)
        ran.append(sql)
    with app.cursor() as cursor:  # SENTINEL: the entries before it are written once it answers
        cursor.execute(SENTINEL)
    return ran


def as_logged(ran: list[str], fmt: str, flavor: str) -> list[str]:
    """The statements of `ran` as a `fmt` ("slow" / "general") log of a `flavor` server writes
    them: without leading whitespace; MySQL writes a PREPARE as `PREPARE s FROM ...`; a slow log
    holds an EXECUTE as the statement it ran, a general log both (an Execute entry after the query)."""
    out = []
    for sql in (one.lstrip() for one in ran):
        if sql.startswith("PREPARE s FROM") and flavor == "mysql":
            out.append("PREPARE s FROM ...")
        elif sql == "EXECUTE s USING @k":
            out.extend(
                [sql, "SELECT id FROM t WHERE k = 2"]
                if fmt == "general"
                else ["SELECT id FROM t WHERE k = 2"]
            )
        else:
            out.append(sql)
    return out
