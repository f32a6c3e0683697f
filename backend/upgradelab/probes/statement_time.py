"""Server-side statement time of the workload connection, from performance_schema statement summaries."""

import time
from typing import ClassVar

from upgradelab.probes.base import Measurement, ProbeUnavailable, fetch_all, performance_schema_reason
from upgradelab.targets.provisioners.base import ServerConnection

PICOSECONDS_PER_S = 1e12
# How long a reading waits for the workload thread to be idle (its last statement's event ended and
# summed), polling every SETTLE_POLL_S; past it the reading is taken anyway. It ends at the first idle
# reading (at once when the thread is idle): 0.1 s missed a statement once in 200 iterations on a loaded
# host (a gate run: 9 of 10 counted), so the bound is a second.
SETTLE_TIMEOUT_S = 1.0
SETTLE_POLL_S = 0.0002

# The thread is idle when both its command is 'Sleep' and its statement text is gone. Either alone
# comes before the statement's event is summed on one of the two servers (dispatch_command's end):
# - MySQL 8.0/9.x sets the command to Sleep *before* MYSQL_END_STATEMENT, and clears the text the
#   threads table shows (reset_query_for_display) after it;
# - MariaDB clears the text (reset_query) before MYSQL_END_STATEMENT, and sets Sleep after it.
# A reading between the two missed the iteration's last statement (MySQL 9.7, a loaded CI host: 9
# statements counted, then 11 in the next iteration, with Sleep already shown).
THREAD_STATE = (
    "SELECT PROCESSLIST_COMMAND, PROCESSLIST_INFO FROM performance_schema.threads WHERE THREAD_ID = %s"
)

_SUMMARY = (
    "SELECT COALESCE(SUM(COUNT_STAR), 0), COALESCE(SUM(SUM_TIMER_WAIT), 0) "
    "FROM performance_schema.events_statements_summary_by_thread_by_event_name WHERE THREAD_ID = %s"
    " AND EVENT_NAME LIKE 'statement/sql/%%'"
)


class StatementTimeProbe:
    """Delta of the workload thread's statement count and SUM_TIMER_WAIT across an iteration.

    Metrics (probe "statement_time"): statements (COUNT_STAR) and server_s (seconds, float,
    SUM_TIMER_WAIT picoseconds / 1e12, from events_statements_summary_by_thread_by_event_name for the
    workload connection's THREAD_ID). SQL statements only (statement/sql/%): protocol commands such as
    the COM_INIT_DB of select_db, which the client does not time, are left out. Beside the client-side
    time (sample.elapsed_s) it shows the harness's own overhead: network, protocol and Python.
    """

    name: ClassVar[str] = "statement_time"
    cadence: ClassVar[str] = "iteration"

    def __init__(self) -> None:
        self.thread_id: int | None = None

    def check(self, probe_connection: ServerConnection, workload_thread_id: int | None) -> None:
        """Raise ProbeUnavailable when performance_schema is off, or the workload thread or its
        statement instruments cannot be found."""
        reason = performance_schema_reason(probe_connection)
        if reason:
            raise ProbeUnavailable(reason)
        if workload_thread_id is None:
            raise ProbeUnavailable("the workload connection has no performance_schema THREAD_ID")
        [(enabled,)] = fetch_all(
            probe_connection,
            "SELECT COUNT(*) FROM performance_schema.setup_instruments "
            "WHERE NAME LIKE 'statement/sql/%%' AND ENABLED = 'YES' AND TIMED = 'YES'",
        )
        if not enabled:
            raise ProbeUnavailable("no statement/sql/% instrument is enabled and timed")
        [(instrumented,)] = fetch_all(
            probe_connection,
            "SELECT INSTRUMENTED FROM performance_schema.threads WHERE THREAD_ID = %s",
            (workload_thread_id,),
        )
        if str(instrumented).upper() != "YES":
            raise ProbeUnavailable(f"thread {workload_thread_id} is not instrumented")
        self.thread_id = workload_thread_id

    def read(self, probe_connection: ServerConnection) -> tuple[int, int]:
        """(statements, SUM_TIMER_WAIT picoseconds) of the workload thread so far, read once the
        thread is idle (`idle`: PROCESSLIST_COMMAND 'Sleep' and no PROCESSLIST_INFO, waited for at
        most SETTLE_TIMEOUT_S).

        Why wait: the server sends a statement's OK before it ends the statement's event and adds it
        to the summary, so a reading taken right after the client's last statement can miss that
        statement, and the next iteration's delta gets it (MySQL 9.7: 2 of 200 iterations of article
        001 read up to 1.15x the client's time once nothing else was read before this probe).
        """
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while time.monotonic() < deadline:
            if idle(fetch_all(probe_connection, THREAD_STATE, (self.thread_id,))):
                break
            time.sleep(SETTLE_POLL_S)
        [(count, timer)] = fetch_all(probe_connection, _SUMMARY, (self.thread_id,))
        return int(count), int(timer)

    def delta(self, before: tuple[int, int], after: tuple[int, int]) -> list[Measurement]:
        """statements and server_s of the iteration."""
        return [
            Measurement(self.name, "statements", float(after[0] - before[0])),
            Measurement(self.name, "server_s", (after[1] - before[1]) / PICOSECONDS_PER_S),
        ]


def idle(rows: list[tuple[object, ...]]) -> bool:
    """Whether a thread's row of performance_schema.threads, (PROCESSLIST_COMMAND, PROCESSLIST_INFO),
    shows its last statement's event ended and summed: command 'Sleep' (or none) and no statement text
    (NULL or empty). No row (the thread is gone): idle, nothing more will be summed. Why both: see
    THREAD_STATE."""
    if not rows:
        return True
    command, info = rows[0][0], rows[0][1]
    return command in (None, "Sleep") and not info
