"""A workload's sessions run together on one variant's server, as they ran (issue 50's concurrent
replay, one trial): every session on a connection of its own (a thread each), its statements in
their order, the gaps between them kept at a speed factor, every statement under the statement
bound (targets/statement_timeout.py StatementBound: the server's own limit on MariaDB, a KILL QUERY
watchdog on both), what each did recorded.

Timing: the trial's clock starts once every session's connection is open; a statement whose offset
is o starts at o / speed seconds on it (speed 1: as recorded, 2: twice as fast), and never before
its session's previous statement ended; speed 0 runs each session's statements back to back. A
statement's latency is the client's (time.perf_counter around execute and reading its rows, which
are counted and dropped as they arrive: a statement's rows are never held).

Bounded: at most `max_sessions` sessions (refused before a connection opens), `max_duration_s`
seconds of trial (then every session is stopped as by a cancel, `stopped` says "duration"), at most
`max_results` statement results kept (past it the trial stops: "memory"). A cancel (`cancelled()`
answering True, read every CANCEL_POLL_S) kills the statement each session runs (KILL QUERY) and
starts no other; every thread is joined and every connection closed before run_sessions returns,
within about a second. A session that ends inside a transaction has it rolled back by its
connection's close, as on the server it came from.
"""

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import pymysql
from pydantic import BaseModel, Field
from pymysql.cursors import Cursor

from upgradelab.measurement.pt_fingerprint import class_id, pt_fingerprint
from upgradelab.measurement.session_shapes import Session, SessionStatement
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.targets.statement_timeout import (
    StatementBound,
    StatementInterrupted,
    StatementTimedOut,
)

CANCEL_POLL_S = 0.1
# connection errors after which a session's connection is gone (the rest of it cannot run)
LOST = frozenset({2006, 2013, 2055})
# errors after which InnoDB has rolled the whole transaction back, not the statement only: 1213 a
# deadlock; 1020 MariaDB's innodb_snapshot_isolation (treated as a deadlock since MDEV-35235). The
# COMMIT that follows returns OK and commits nothing, so it is no committed transaction. (1205, a
# lock wait timeout, rolls back the statement only unless innodb_rollback_on_timeout is ON: not here.)
ROLLS_BACK = frozenset({1020, 1213})

Stopped = Literal["cancelled", "duration", "memory"]


class DriverError(ValueError):
    """A trial that cannot start (past a bound, named; a bad speed; a connection refused) or whose
    session's thread failed (every session then stopped, the failure chained)."""


class DriverBounds(BaseModel):
    """A trial's bounds: sessions at once, seconds of trial, statement results kept."""

    max_sessions: int = Field(default=256, ge=1)
    max_duration_s: float = Field(default=3600.0, gt=0)
    max_results: int = Field(default=1_000_000, ge=1)


@dataclass(slots=True)
class StatementRun:
    """One statement as the trial ran it: its session's number and its order there, pt-query-digest's
    fingerprint and class ID, `started_s` on the trial's clock (seconds from its start) and
    `scheduled_s` when it was due there (its offset / speed; None at speed 0), client
    `latency_s` (seconds; None: not run), the server's `error_code` and `error` (None: none;
    a statement the bound ended: error "timed out after N s", code None, `timed_out`), and `rows`:
    rows read (a statement with a result) or rows affected (one without).

    A slotted dataclass, not a pydantic model: a trial keeps one per statement (up to its
    DriverBounds.max_results), and this is ~210 bytes a result against ~1,360 as a model
    (tracemalloc; bench/concurrent_replay.py --cases memory measures a whole trial's)."""

    session: int
    order: int
    fingerprint: str
    class_id: str
    started_s: float
    scheduled_s: float | None = None
    latency_s: float | None = None
    error_code: int | None = None
    error: str | None = None
    timed_out: bool = False
    rows: int | None = None


class TrialRun(BaseModel):
    """A trial: every statement run (`statements`, in the order they ended), `wall_s` from its
    start to its last session's end, `transactions` the transactions committed: the statements that
    ran without error and end a transaction (SessionStatement.transaction_end), unless an earlier
    statement of that transaction failed with an error that rolled it back (ROLLS_BACK: its COMMIT
    returns OK and commits nothing), the rates per second of wall clock, `sessions`
    run, and `stopped` when it did not run to its end (cancelled, its duration or result bound)."""

    statements: list[StatementRun]
    sessions: int
    wall_s: float
    transactions: int
    statements_per_s: float
    transactions_per_s: float
    stopped: Stopped | None = None

    @property
    def behind_s(self) -> float | None:
        """How late the latest-started statement was against its schedule (seconds, the largest
        started_s - scheduled_s): more than the recorded gaps means the trial could not keep the
        recorded pace (the server or this machine too slow for it) and its rates are the trial's,
        not the recording's. None at speed 0."""
        late = [one.started_s - one.scheduled_s for one in self.statements if one.scheduled_s is not None]
        return max(late, default=None)

    @property
    def errors(self) -> dict[int, int]:
        """Statements that failed, by error code (timeouts and lost connections without one: 0)."""
        counts: dict[int, int] = {}
        for one in self.statements:
            if one.error is not None:
                counts[one.error_code or 0] = counts.get(one.error_code or 0, 0) + 1
        return counts


@dataclass(frozen=True)
class SessionOpener:
    """How a trial reaches one variant's server: `connect(database)` opens a new autocommit
    connection as the replay's account with that default database (None: the account's), its reads
    bounded beyond the statement timeout (Endpoint.connect's read_timeout_s); `admin()` a connection
    that may KILL QUERY the replay's (the lab's admin account); `flavor` "mysql" | "mariadb"."""

    connect: Callable[[str | None], ServerConnection]
    admin: Callable[[], ServerConnection]
    flavor: str


def _count(cursor: Cursor) -> int:
    if cursor.description is None:
        return int(cursor.rowcount)
    return sum(1 for _ in cursor)


class _Trial:
    def __init__(self, bounds: DriverBounds, speed: float, classes: dict[str, tuple[str, str]]) -> None:
        self.bounds, self.speed, self.classes = bounds, speed, classes
        self.stop = threading.Event()
        self.stopped: Stopped | None = None
        self.lock = threading.Lock()
        self.runs: list[StatementRun] = []
        self.transactions = 0
        self.bounds_open: list[StatementBound] = []
        self.start = 0.0
        self.failure: BaseException | None = None

    def halt(self, why: Stopped) -> None:
        """Stop every session: first the statements running (KILL QUERY, none other starts), then
        the waits; so no session's connection closes (its transaction rolling back) while another's
        statement still waits for its locks, and that statement never completes after the stop."""
        with self.lock:
            if self.stopped is None:
                self.stopped = why
            bounds = list(self.bounds_open)
        for bound in bounds:
            bound.interrupt()
        self.stop.set()

    def record(self, run: StatementRun, ends: bool) -> None:
        with self.lock:
            self.runs.append(run)
            self.transactions += ends and run.error is None
            full = len(self.runs) >= self.bounds.max_results
        if full:
            self.halt("memory")

    def session(self, session: Session, bound: StatementBound) -> None:
        """Run one session on its bound connection (a thread's body); what it raises stops the
        trial and is raised again by run_sessions, never lost with the thread."""
        try:
            self._session(session, bound)
        except BaseException as error:
            with self.lock:
                self.failure = self.failure or error
            self.halt("cancelled")

    def _session(self, session: Session, bound: StatementBound) -> None:
        database = session.database
        rolled_back = False  # the open transaction was rolled back by an error (ROLLS_BACK)
        try:
            for statement in session.statements:
                if self.speed > 0:
                    wait = self.start + statement.offset_s / self.speed - time.perf_counter()
                    if wait > 0 and self.stop.wait(wait):
                        return
                if self.stop.is_set():
                    return
                if statement.database and statement.database != database:
                    database = statement.database
                    try:
                        bound.connection.select_db(database)
                    except pymysql.MySQLError as error:
                        self.record(self._failed(session, statement, error), False)
                        continue
                run = self._run(session, statement, bound)
                if run is None:
                    return
                rolled_back = rolled_back or run.error_code in ROLLS_BACK
                self.record(run, statement.transaction_end and not rolled_back)
                if statement.transaction_end:
                    rolled_back = False
                if run.error_code in LOST:
                    return
        finally:
            bound.connection.close()  # an open transaction rolls back, as when its session quit

    def _scheduled(self, statement: SessionStatement) -> float | None:
        return statement.offset_s / self.speed if self.speed > 0 else None

    def _failed(
        self, session: Session, statement: SessionStatement, error: pymysql.MySQLError
    ) -> StatementRun:
        text, class_ = self.classes[statement.sql]
        code = error.args[0] if error.args and isinstance(error.args[0], int) else None
        return StatementRun(
            session=session.number,
            order=statement.order,
            fingerprint=text,
            class_id=class_,
            started_s=time.perf_counter() - self.start,
            scheduled_s=self._scheduled(statement),
            error_code=code,
            error=str(error.args[-1]) if error.args else str(error),
        )

    def _run(
        self, session: Session, statement: SessionStatement, bound: StatementBound
    ) -> StatementRun | None:
        started = time.perf_counter() - self.start
        text, class_ = self.classes[statement.sql]
        run = StatementRun(
            session=session.number,
            order=statement.order,
            fingerprint=text,
            class_id=class_,
            started_s=started,
            scheduled_s=self._scheduled(statement),
        )
        try:
            run.rows, run.latency_s = bound.stream(statement.sql, _count)
        except StatementInterrupted:
            return None  # a cancel or a bound of the trial: not a result of the statement
        except StatementTimedOut as error:
            run.error, run.timed_out = f"timed out after {error.seconds:g} s", True
        except pymysql.MySQLError as error:
            failed = self._failed(session, statement, error)
            run.error_code, run.error = failed.error_code, failed.error
            run.latency_s = time.perf_counter() - self.start - started
        return run


def run_sessions(
    sessions: Sequence[Session],
    opener: SessionOpener,
    *,
    speed: float,
    timeout_s: float,
    bounds: DriverBounds | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> TrialRun:
    """Run `sessions` together on the server `opener` reaches (module docstring): speed >= 0 (1 as
    recorded, 0 as fast as possible), every statement bounded by `timeout_s` seconds
    (StatementBound's MIN_TIMEOUT_S..MAX_TIMEOUT_S), within `bounds`, stopped by `cancelled()`
    (execution/cancel.py CancelWatch's "cancelled?", read every CANCEL_POLL_S). DriverError past
    max_sessions, for a negative speed, or when a session's connection cannot be opened (those
    opened are closed). Returns once every session's thread ended and its connection closed."""
    bounds = bounds or DriverBounds()
    if speed < 0:
        raise DriverError(f"speed {speed}: 0 (as fast as possible) or more (1: as recorded)")
    if len(sessions) > bounds.max_sessions:
        raise DriverError(
            f"{len(sessions):,} sessions: a trial runs at most {bounds.max_sessions:,} at once (max_sessions)"
        )
    # each statement's class, before the trial: no fingerprinting between a session's statements
    classes: dict[str, tuple[str, str]] = {}
    for session in sessions:
        for statement in session.statements:
            if statement.sql not in classes:
                text = pt_fingerprint(statement.sql)
                classes[statement.sql] = (text, class_id(text))
    trial = _Trial(bounds, speed, classes)
    for session in sessions:
        if cancelled():
            trial.halt("cancelled")
            break
        try:
            connection = opener.connect(session.database)
        except BaseException as error:  # a refused connection, or the opener's own (a refused setting)
            for bound in trial.bounds_open:
                bound.connection.close()
            if isinstance(error, pymysql.MySQLError):
                message = f"session {session.number} (thread {session.thread_id}): {error}"
                raise DriverError(message) from error
            raise
        bound = StatementBound(connection, timeout_s, opener.flavor, opener.admin)
        trial.bounds_open.append(bound)
        try:
            bound.apply()
        except pymysql.MySQLError as error:
            for one in trial.bounds_open:
                one.connection.close()
            raise DriverError(f"session {session.number}: the statement bound: {error}") from error
    threads = [
        threading.Thread(
            target=trial.session, args=(session, bound), name=f"session-{session.number}", daemon=True
        )
        for session, bound in zip(sessions, trial.bounds_open, strict=False)
    ]
    if trial.stop.is_set():
        for bound in trial.bounds_open:
            bound.connection.close()
        threads = []
    trial.start = time.perf_counter()
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        if not trial.stop.is_set():
            if cancelled():
                trial.halt("cancelled")
            elif time.perf_counter() - trial.start > bounds.max_duration_s:
                trial.halt("duration")
        for thread in threads:
            thread.join(CANCEL_POLL_S / max(1, len(threads)))
    wall = time.perf_counter() - trial.start
    if trial.failure is not None:
        raise DriverError(f"a session failed: {trial.failure!r}") from trial.failure
    ran = [one for one in trial.runs if one.latency_s is not None or one.timed_out]
    return TrialRun(
        statements=trial.runs,
        sessions=len(threads),
        wall_s=wall,
        transactions=trial.transactions,
        statements_per_s=len(ran) / wall if wall > 0 else 0.0,
        transactions_per_s=trial.transactions / wall if wall > 0 else 0.0,
        stopped=trial.stopped,
    )
