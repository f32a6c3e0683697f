"""What a capture reads from a server, on one connection of the lab's (a read-only account is enough:
SHOW GLOBAL VARIABLES needs no privilege, the accounts SELECT on mysql.user, the digests SELECT on
performance_schema). Only fixed statements are sent; captured values come back as data and are
never put into SQL (the history lookup binds the digests as parameters).
"""

from typing import Any

import pymysql
from pymysql.cursors import DictCursor

from upgradelab.captures import digests as workload
from upgradelab.captures import own_statements
from upgradelab.captures.workload_problems import counts, problems, read_instrumentation
from upgradelab.targets.provisioners.base import ServerConnection

DIGEST_LIMIT = 1000  # the most executed digests read (performance_schema keeps 5000 by default in 8.0)
_HISTORY_TABLES = ("events_statements_history_long", "events_statements_history")


def server_identity(connection: ServerConnection) -> tuple[str, str, dict[str, str]]:
    """(VERSION(), @@version_comment, SHOW GLOBAL VARIABLES as {name: value})."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT VERSION(), @@version_comment")
        version, comment = cursor.fetchone() or ("", "")
        cursor.execute("SHOW GLOBAL VARIABLES")
        variables = {str(name): "" if value is None else str(value) for name, value in cursor.fetchall()}
    return str(version), str(comment or ""), variables


def accounts(connection: ServerConnection) -> list[dict[str, str]]:
    """[{"user", "host", "plugin"}] of mysql.user, by user and host (on MariaDB a view that shows the
    plugin of global_priv). No hash column is ever selected. pymysql.MySQLError when the account may
    not read mysql.user (the caller keeps the server's words)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT User, Host, plugin FROM mysql.user ORDER BY User, Host")
        rows = cursor.fetchall()
    return [{"user": _text(u), "host": _text(h), "plugin": _text(p)} for u, h, p in rows]


def read_workload(
    connection: ServerConnection, limit: int = DIGEST_LIMIT, variables: dict[str, str] | None = None
) -> workload.Workload:
    """The digests (captures/digests.py) of the `limit` most executed statements, the lab's own
    (captures/own_statements.py) counted apart and left out; a Workload with `error` (the server's
    words) when performance_schema is off or may not be read. Its `problems` say why it is empty or
    not all replayable, judged with the server's `variables` (captures/workload_problems.py), and
    `replayable` / `empty` count what a replay can run."""
    try:
        with connection.cursor(DictCursor) as cursor:
            cursor.execute(
                "SELECT * FROM performance_schema.events_statements_summary_by_digest "
                "ORDER BY COUNT_STAR DESC LIMIT %s",
                (limit,),
            )
            rows = list(cursor.fetchall())
    except pymysql.MySQLError as error:
        read = workload.Workload(
            digests=[], executions=0, quantiles=False, samples=False, limit=limit,
            error=f"performance_schema digests cannot be read: {error}",
        )  # fmt: skip
        lost = 0
    else:
        rows, lab = own_statements.split(rows)  # the lab's own statements are not the team's workload
        needing = [_text(r["DIGEST"]) for r in rows if r.get("DIGEST") and not r.get("QUERY_SAMPLE_TEXT")]
        read = workload.build(rows, _history(connection, needing), limit, lab)
        lost = counts(rows)
    textless = sum(one.executions for one in read.digests if one.text_source == "digest_text")
    read.problems = problems(
        variables or {},
        read_instrumentation(connection),
        digests=len(read.digests) - lost,
        with_text=sum(1 for one in read.digests if one.text_source != "digest_text"),
        lost_rows=lost,
        samples=read.samples,
        error=read.error,
        without_share=textless / read.executions if read.executions else 1.0,
    )
    read.replayable = sum(1 for one in read.digests if workload.replayable_text(one) is not None)
    read.empty = read.replayable == 0
    return read


def _history(connection: ServerConnection, wanted: list[str]) -> dict[str, str]:
    """{digest: SQL_TEXT} of the newest statement of each wanted digest in the history tables (either
    may be empty, its consumer off, or unreadable: then nothing from it)."""
    found: dict[str, str] = {}
    for table in _HISTORY_TABLES:
        missing = [d for d in wanted if d not in found]
        if not missing:
            break
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            marks = ", ".join(["%s"] * len(chunk))  # the digests bound; the table names fixed
            try:
                with connection.cursor() as cursor:
                    cursor.execute(
                        f"SELECT DIGEST, SQL_TEXT FROM performance_schema.{table} "
                        f"WHERE DIGEST IN ({marks}) AND SQL_TEXT IS NOT NULL ORDER BY EVENT_ID DESC",
                        chunk,
                    )
                    for digest, text in cursor.fetchall():
                        found.setdefault(_text(digest), _text(text))
            except pymysql.MySQLError:
                break
    return found


def _text(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace")
    return "" if value is None else str(value)
