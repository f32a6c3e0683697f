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


# where each global value came from (configuration.py NOT_SET_ORIGINS): MariaDB's, then MySQL's table
_ORIGIN_QUERIES = (
    "SELECT VARIABLE_NAME, GLOBAL_VALUE_ORIGIN FROM information_schema.SYSTEM_VARIABLES",
    "SELECT VARIABLE_NAME, VARIABLE_SOURCE FROM performance_schema.variables_info",
)


def variable_origins(connection: ServerConnection) -> dict[str, str] | None:
    """{lower-case name: the server's word for where its global value came from} (captures/
    configuration.py), from MariaDB's information_schema.SYSTEM_VARIABLES (no privilege needed) or
    MySQL's performance_schema.variables_info (SELECT on performance_schema); None when neither can
    be read (the values alone then say what differs)."""
    for query in _ORIGIN_QUERIES:
        try:
            with connection.cursor() as cursor:
                cursor.execute(query)
                rows = cursor.fetchall()
        except pymysql.MySQLError:
            continue
        found = {_text(name).lower(): _text(origin).upper() for name, origin in rows if origin is not None}
        if found:
            return found
    return None


# MariaDB's mysql.user (a view of global_priv) has is_role and no account_locked (global_priv's JSON
# holds it); MySQL has account_locked and marks a role only as a locked account; a server older than
# both has neither column
_ACCOUNT_QUERIES = (
    "SELECT User, Host, plugin, is_role, 'N' FROM mysql.user ORDER BY User, Host",
    "SELECT User, Host, plugin, 'N', account_locked FROM mysql.user ORDER BY User, Host",
    "SELECT User, Host, plugin, 'N', 'N' FROM mysql.user ORDER BY User, Host",
)
# JSON_VALUE gives a JSON true as '1' (measured on 10.11.19)
_MARIADB_LOCKED = (
    "SELECT User, Host FROM mysql.global_priv WHERE JSON_VALUE(Priv, '$.account_locked') IN ('1', 'true')"
)
# MariaDB's own locked account (the definer of its mysql.user view, MariaDB docs "mariadb.sys user"),
# taken as locked when global_priv may not be read
_MARIADB_SYSTEM = {("mariadb.sys", "localhost")}
_UNKNOWN_COLUMN = 1054


def accounts(connection: ServerConnection) -> list[dict[str, Any]]:
    """[{"user", "host", "plugin", "role", "locked"}] of mysql.user, by user and host (on MariaDB a view
    that shows the plugin of global_priv); `role` (MariaDB's is_role) and `locked` (account_locked:
    a MySQL role is a locked account; MariaDB's from global_priv where the account may read it, else
    only its own mariadb.sys) are booleans, False where the server has no such column. No hash column
    is ever selected. pymysql.MySQLError when the account may not read mysql.user (the caller keeps
    the server's words)."""
    rows: list[Any] = []
    for number, query in enumerate(_ACCOUNT_QUERIES):
        try:
            with connection.cursor() as cursor:
                cursor.execute(query)
                rows = list(cursor.fetchall())
            break
        except pymysql.MySQLError as error:
            if error.args[0] != _UNKNOWN_COLUMN or number == len(_ACCOUNT_QUERIES) - 1:
                raise
    locked = _MARIADB_SYSTEM if number == 0 else set()
    if number == 0:
        try:
            with connection.cursor() as cursor:
                cursor.execute(_MARIADB_LOCKED)
                locked = {(_text(u), _text(h)) for u, h in cursor.fetchall()}
        except pymysql.MySQLError:
            pass  # global_priv not readable by the capture's account
    return [
        {
            "user": _text(u),
            "host": _text(h),
            "plugin": _text(p),
            "role": _yes(r),
            "locked": _yes(lk) or (_text(u), _text(h)) in locked,
        }
        for u, h, p, r, lk in rows
    ]


def _yes(value: Any) -> bool:
    return _text(value).upper() == "Y"


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
    workload.count_replayable(read)
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
