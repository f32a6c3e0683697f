"""Statement timeouts: every statement a user brings (replayed queries, custom SQL) ends within its bound.

Two layers, because neither server bounds every statement by itself:
- the server's own limit, set on the session: MariaDB's `max_statement_time` (any statement outside
  stored programs; error 1969). MySQL's `max_execution_time` covers read-only SELECTs only, so it
  is not used: a bound that holds for some statements reads as a bound that holds for all;
- a watchdog, on both flavors: past the deadline, `KILL QUERY <connection id>` from a second
  connection (the lab's admin account: the statement's own account may be read-only). The same
  kill ends a statement at once on request (`StatementBound.interrupt`: a cancelled replay).

Cost per statement: a lock and two attribute writes. One timer thread serves the whole process: it
sleeps until the earliest deadline of the statements running (few: one per connection) and is woken
only when a statement starts with a deadline earlier than the one it sleeps for. A kill runs in a
thread of its own (rare), so one slow kill never delays another deadline.

Exactness: the kill is issued while the bound's lock is held and only for the statement generation
that passed its deadline; the next statement on that connection starts after the lock is released,
so a late kill never lands on the next statement. A statement the server ends by itself within the
bound is not a timeout. A timeout is known from the watchdog's own record, the server's timeout
errors, or a statement that ran the whole bound, not from the error alone: MySQL's `SELECT SLEEP(n)`
interrupted by KILL QUERY returns 1 without an error, and MariaDB's max_statement_time ends `DO
SLEEP(n)` or `SELECT BENCHMARK(...)` without one.
"""

import logging
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, TypeVar, cast

import pymysql
from pymysql.cursors import Cursor, SSCursor

from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.targets.timeout_bounds import DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S
from upgradelab.targets.timeout_bounds import MAX_TIMEOUT_S as MAX_TIMEOUT_S
from upgradelab.targets.timeout_bounds import MIN_TIMEOUT_S as MIN_TIMEOUT_S

log = logging.getLogger(__name__)

# The server's own limit ends the statement first; the watchdog follows this much later (seconds).
WATCHDOG_GRACE_S = 0.5
# Error codes of a statement the server ended for its time limit: MariaDB max_statement_time,
# MySQL max_execution_time (a limit a user statement may set for itself).
SERVER_TIMEOUT_ERRORS = frozenset({1969, 3024})
QUERY_INTERRUPTED = 1317
T = TypeVar("T")


class StatementTimedOut(RuntimeError):
    """A statement ran past its bound and was ended (by the server's limit or the watchdog)."""

    def __init__(self, seconds: float, sql: str) -> None:
        self.seconds, self.sql = seconds, sql
        super().__init__(f"statement timed out after {seconds:g} s: {' '.join(sql.split())[:200]}")


class StatementInterrupted(RuntimeError):
    """The bound was interrupted (a cancelled replay): the statement running was killed, no other starts."""


def timed_out_text(seconds: float) -> str:
    """'timed out after 30 s': how an outcome, a report and the CLI say it."""
    return f"timed out after {seconds:g} s"


class _Watchdog:
    """The process's timer thread (see the module docstring); bounds register themselves."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._bounds: weakref.WeakSet[StatementBound] = weakref.WeakSet()
        self._sleeping_until = float("inf")
        self._thread: threading.Thread | None = None

    def register(self, bound: "StatementBound") -> None:
        with self._wake:
            self._bounds.add(bound)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="statement-watchdog", daemon=True)
                self._thread.start()

    def armed(self, deadline: float) -> None:
        """A statement started with this deadline: wake the thread only if it sleeps past it."""
        if deadline < self._sleeping_until:
            with self._wake:
                self._wake.notify()

    def _loop(self) -> None:
        while True:
            with self._wake:
                now = time.monotonic()
                due = [b for b in list(self._bounds) if b._deadline <= now]
                earliest = min((b._deadline for b in list(self._bounds)), default=float("inf"))
                if not due:
                    self._sleeping_until = earliest
                    self._wake.wait(None if earliest == float("inf") else max(0.0, earliest - now))
                    self._sleeping_until = float("inf")
                    continue
            for bound in due:
                bound._expire()


_WATCHDOG = _Watchdog()


class StatementBound:
    """The time bound of the statements of one connection.

    connection: the connection user statements run on (its server thread id is what is killed);
    seconds: the bound (MIN_TIMEOUT_S..MAX_TIMEOUT_S); flavor: "mysql" | "mariadb";
    admin: opens a connection that may kill that thread (the lab's admin endpoint `connect`).

    `run(sql)` executes one statement within the bound: (rows, seconds), or StatementTimedOut /
    StatementInterrupted, or the server's own pymysql error. `apply()` sets the server's limit on
    the session (MariaDB); call it again after anything that may reset the session."""

    def __init__(
        self,
        connection: ServerConnection,
        seconds: float,
        flavor: str,
        admin: Callable[[], ServerConnection],
    ) -> None:
        if not MIN_TIMEOUT_S <= seconds <= MAX_TIMEOUT_S:
            raise ValueError(f"statement timeout {seconds} s: between {MIN_TIMEOUT_S} and {MAX_TIMEOUT_S} s")
        self.connection, self.seconds, self.flavor = connection, seconds, flavor
        self._admin = admin
        self._thread_id = int(connection.thread_id())  # type: ignore[no-untyped-call]
        self._lock = threading.Lock()  # held by a kill in flight and while a statement starts or ends
        self._deadline = float("inf")  # of the statement running; inf when none runs
        self._generation = 0  # statements started
        self._running = False  # a statement of this generation has not ended yet
        self._ended_by: str | None = None  # "timeout" | "interrupt": the watchdog ended this generation
        self._interrupted = False
        _WATCHDOG.register(self)

    def apply(self) -> None:
        """The server's own limit on this session: MariaDB max_statement_time (seconds)."""
        if self.flavor == "mariadb":
            with self.connection.cursor() as cursor:
                cursor.execute(f"SET SESSION max_statement_time = {self.seconds + WATCHDOG_GRACE_S / 2:.3f}")

    @property
    def interrupted(self) -> bool:
        """True once interrupt() was called: no statement starts any more."""
        return self._interrupted

    def interrupt(self) -> None:
        """End the statement running now (KILL QUERY) and refuse any later one; from any thread."""
        with self._lock:
            self._interrupted = True
            self._kill(self._generation, "interrupt")

    def _expire(self) -> None:
        """Called by the watchdog when the deadline passed: kill in a thread of its own."""
        with self._lock:
            if self._deadline > time.monotonic():
                return
            generation, self._deadline = self._generation, float("inf")
        threading.Thread(
            target=self._kill_if_current, args=(generation,), name="statement-kill", daemon=True
        ).start()

    def _kill_if_current(self, generation: int) -> None:
        with self._lock:
            self._kill(generation, "timeout")

    def _kill(self, generation: int, why: str) -> None:
        """KILL QUERY the connection's thread if `generation` still runs; the lock is held."""
        if generation != self._generation or not self._running or self._ended_by is not None:
            return
        self._ended_by = why
        try:
            admin = self._admin()
            try:
                with admin.cursor() as cursor:
                    cursor.execute(f"KILL QUERY {int(self._thread_id)}")
            finally:
                admin.close()
        except pymysql.MySQLError:
            log.exception("KILL QUERY %s (%s) failed", self._thread_id, why)

    def _start(self) -> int:
        with self._lock:
            if self._interrupted:
                raise StatementInterrupted("the statements were interrupted")
            self._generation += 1
            self._running, self._ended_by = True, None
            grace = WATCHDOG_GRACE_S if self.flavor == "mariadb" else 0.0
            self._deadline = time.monotonic() + self.seconds + grace
            deadline = self._deadline
        _WATCHDOG.armed(deadline)
        return self._generation

    def _end(self) -> str | None:
        """The statement ended: disarm; why the watchdog ended it, if it did."""
        with self._lock:
            self._running, self._deadline = False, float("inf")
            return self._ended_by

    def run(self, sql: str, args: Any = None) -> tuple[list[tuple[Any, ...]], float]:
        """Execute `sql` and fetch every row within the bound; (rows, seconds around execute +
        fetch, perf_counter). StatementTimedOut when it ran past the bound, StatementInterrupted
        when interrupt() ended it (or came before), the server's pymysql error otherwise."""
        return self.stream(sql, lambda cursor: list(cursor.fetchall()), args, unbuffered=False)

    def stream(
        self, sql: str, consume: Callable[[Cursor], T], args: Any = None, *, unbuffered: bool = True
    ) -> tuple[T, float]:
        """As run(), but the rows go to `consume(cursor)` (called after execute, within the bound
        and the timing) on an unbuffered cursor (pymysql SSCursor: rows are read off the wire as
        `consume` iterates, never held whole); (what consume returns, seconds)."""
        self._start()
        error: pymysql.MySQLError | None = None
        consumed: T | None = None
        started = time.perf_counter()
        try:
            with self.connection.cursor(SSCursor if unbuffered else None) as cursor:
                cursor.execute(sql, args)
                consumed = consume(cursor)
        except pymysql.MySQLError as failure:
            error = failure
        finally:
            elapsed = time.perf_counter() - started
            ended_by = self._end()
        if ended_by == "interrupt":
            raise StatementInterrupted("the statement was interrupted") from error
        code = error.args[0] if error is not None and error.args else None
        # A statement the limit ended may end without an error (MariaDB's DO SLEEP, BENCHMARK):
        # one that ran the whole bound reached it, whatever it answered.
        if ended_by == "timeout" or code in SERVER_TIMEOUT_ERRORS or elapsed >= self.seconds:
            raise StatementTimedOut(self.seconds, sql) from error
        if error is not None:
            raise error
        return cast(T, consumed), elapsed

    def execute(self, *statements: str) -> None:
        """run() each statement in turn, rows dropped."""
        for sql in statements:
            self.run(sql)
