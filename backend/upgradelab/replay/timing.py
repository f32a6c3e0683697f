"""How a replayed statement is timed: by the server's own clock where performance_schema gives it,
the client's otherwise, and repeated until enough time was measured.

Clock. performance_schema.events_statements_history holds, per thread, the statements it completed
with TIMER_WAIT in picoseconds: the server's time from parse to the last row sent, without the
network, the client's parsing of rows or a thread switch on the lab's side. It is read on a second
(admin) connection right after the statement, by the replay session's THREAD_ID, and checked to be
that statement (SQL_TEXT). A ratio needs one clock on both sides: the replay uses "server" only when
every variant's server has performance_schema ON (MySQL's default; MariaDB's is OFF, so a variant
option `performance_schema=ON` turns it on), "client" (perf_counter around execute + fetch) otherwise.
A timed run reads its rows to the end and drops them one by one (an unbuffered cursor,
outcomes.Statements.drain): the same work on every variant, and a large result is never held.

Repetition (as Google Benchmark scales its iterations): in each pass a statement runs until
MIN_MEASURED_S seconds were measured or MAX_REPEATS runs, and the pass's value is the median of
those runs. A 0.1 ms statement gets ~200 samples per pass, a 50 ms one runs once; one slow run (a
page fault, a context switch) moves a median of many runs far less than it moves a single run.
"""

import math
import statistics
from dataclasses import dataclass
from typing import Literal

import pymysql

from upgradelab.replay.outcomes import Statements
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.targets.statement_timeout import StatementTimedOut

Clock = Literal["server", "client"]
MIN_MEASURED_S = 0.020
MAX_REPEATS = 200
PICOSECONDS = 1e12
_HISTORY = "events_statements_history"
# the SQL_TEXT column keeps the statement's first 1024 characters (performance_schema_max_sql_text_length)
_TEXT_CHECKED = 64


@dataclass
class ServerClock:
    """Reads a session's last statement's TIMER_WAIT (seconds) on an admin connection of its server."""

    admin: ServerConnection
    thread_id: int

    def last(self, sql: str) -> float | None:
        """Seconds of the session's most recent completed statement, None when that is not `sql`."""
        with self.admin.cursor() as cursor:
            cursor.execute(
                f"SELECT TIMER_WAIT, SQL_TEXT FROM performance_schema.{_HISTORY} "
                "WHERE THREAD_ID = %s ORDER BY EVENT_ID DESC LIMIT 1",
                (self.thread_id,),
            )
            row = cursor.fetchone()
        if (
            row is None
            or row[0] is None
            or not str(row[1] or "").strip().startswith(sql.strip()[:_TEXT_CHECKED])
        ):
            return None
        return int(row[0]) / PICOSECONDS


def server_clock(admin: ServerConnection, session: ServerConnection) -> ServerClock | None:
    """The server clock of `session` read on `admin` (both on one server), or None when the server
    has performance_schema OFF or the admin cannot read it. Turns the statements-history consumer on
    (MySQL's default; MariaDB's is off)."""
    try:
        with admin.cursor() as cursor:
            cursor.execute("SELECT @@performance_schema")
            row = cursor.fetchone()
            if not row or not int(row[0]):
                return None
            cursor.execute(
                "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' "
                "WHERE NAME IN ('events_statements_current', %s)",
                (_HISTORY,),
            )
            cursor.execute(
                "SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = %s",
                (int(session.thread_id()),),  # type: ignore[no-untyped-call]
            )
            found = cursor.fetchone()
    except pymysql.MySQLError:
        return None
    if not found:
        return None
    clock = ServerClock(admin, int(found[0]))
    with session.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchall()
    return clock if clock.last("SELECT 1") is not None else None


def timed_runs(
    statements: Statements,
    sql: str,
    clock: ServerClock | None,
    min_measured_s: float | None = None,
    max_repeats: int | None = None,
) -> list[float] | None:
    """Run `sql` until `min_measured_s` seconds were measured or `max_repeats` runs; the seconds of
    each run (server clock when `clock`; a run whose history row is not this statement, which the
    check above makes rare, counts the client's time). None: this module's MIN_MEASURED_S and
    MAX_REPEATS, read at the call (bench/replay_resolution.py sets them to time one run per pass).
    None when it errors; [math.inf] when a run timed out. StatementInterrupted passes through."""
    seconds: list[float] = []
    max_repeats = MAX_REPEATS if max_repeats is None else max_repeats
    min_measured_s = MIN_MEASURED_S if min_measured_s is None else min_measured_s
    while not seconds or (len(seconds) < max_repeats and sum(seconds) < min_measured_s):
        try:
            _, client = statements.drain(sql)  # streamed and dropped: one row held at a time
        except pymysql.MySQLError:
            return None
        except StatementTimedOut:
            return [math.inf]
        server = clock.last(sql) if clock is not None else None
        seconds.append(client if server is None else server)
    return seconds


def pass_value(runs: list[float] | None) -> float | None:
    """A pass's value: the median of its runs (math.inf when one timed out; None when it errored)."""
    if runs is None:
        return None
    return math.inf if math.inf in runs else float(statistics.median(runs))
