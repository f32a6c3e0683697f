"""A workload's sessions as they ran, for a concurrent replay (issue 50): each statement with its
session, its order in it and its offset in time, read from the sources teams have.

Sources:
- a general log (querylog/general.py): every Query and Execute of a thread, Init DB as `USE db`,
  Connect (a session that starts in the log) and Quit (one that ends there);
- a slow log written with long_query_time=0 (querylog/slow.py: MySQL, MariaDB, verbose MariaDB):
  each event's `Id:` (or `Thread_id:`) is its session; an `administrator command: Quit` ends it;
- rows of performance_schema.events_statements_history_long (`HistoryRow`: THREAD_ID, EVENT_ID,
  TIMER_START, SQL_TEXT, CURRENT_SCHEMA), ordered by EVENT_ID within a thread.

Offsets are seconds (float) from the source's earliest time: a log's entry time (MySQL writes
microseconds; MariaDB whole seconds, and only when the second changes), else a slow log's
`SET timestamp=`; TIMER_START (picoseconds) for history rows. Within a session an offset never
goes back (a slow log stamps a statement when it ends).

Transactions are kept whole. A session's statements are followed through BEGIN / START
TRANSACTION ... COMMIT / ROLLBACK, `SET autocommit = 0` (every statement after it is in a
transaction until COMMIT, ROLLBACK or `SET autocommit = 1`) and the statements that commit
implicitly (DDL, LOCK TABLES, GRANT, ...; `IMPLICIT_COMMIT`). A source cuts a session when:
- it starts inside a transaction: its first COMMIT / ROLLBACK comes before any transaction was
  seen to begin, in a session the source did not see connect (a general log's Connect): that
  COMMIT and the statements before it are dropped ("starts inside a transaction");
- it ends inside one: a transaction still open at the source's end, in a session the source did
  not see quit, is dropped ("ends inside a transaction"). A session the source saw quit with a
  transaction open is kept whole: the server rolled that transaction back as the replay will (a
  session that never commits).
Every cut is listed (`CutPart`: session, the statements' orders and source lines, why).

Bounded: at most `max_sessions` sessions (MAX_SESSIONS), `max_statements` statements
(MAX_STATEMENTS) and `max_chars` characters of statement text (MAX_TEXT_CHARS); the event past a
bound stops the reading with a SessionsError naming the bound (the source is read as a stream,
never whole).
"""

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Literal, TextIO

from upgradelab.measurement.querylog.events import LogEvent
from upgradelab.measurement.querylog.formats import read_events
from upgradelab.measurement.querylog.records import LogError
from upgradelab.measurement.session_shapes import (
    MAX_SESSIONS,
    MAX_STATEMENTS,
    MAX_TEXT_CHARS,
    CutPart,
    CutReason,
    HistoryRow,
    Session,
    SessionLog,
    SessionsError,
    SessionSource,
    SessionStatement,
)
from upgradelab.measurement.transactions import DATA_KINDS, boundary, statement_kind

_GENERAL_TIME = re.compile(r"(\d\d)(\d\d)(\d\d)\s+(\d{1,2}):(\d\d):(\d\d)", re.ASCII)


def log_time(text: str) -> float | None:
    """A log's time as seconds since the epoch (float): ISO `2024-05-01T10:00:00.123456Z` (or with
    `+02:00`, or none: read as UTC), MariaDB's `240501 10:00:00` / `240501  9:00:00`; None when it
    is neither. Only differences between times of one log are used."""
    found = _GENERAL_TIME.fullmatch(text.strip())
    if found:
        year, month, day, hour, minute, second = (int(part) for part in found.groups())
        return datetime(2000 + year, month, day, hour, minute, second, tzinfo=UTC).timestamp()
    try:
        stamp = datetime.fromisoformat(text.strip().replace(" ", "T", 1))
    except ValueError:
        return None
    return (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).timestamp()


class _Open:
    """A session being read: its statements and the state of its transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.read = 0  # statements read (orders given)
        self.autocommit = True
        self.open = False  # a transaction is open
        self.unit: list[SessionStatement] = []  # the open transaction's statements
        self.seen_boundary = False
        self.last_offset = 0.0


class _Builder:
    def __init__(self, source: SessionSource, max_sessions: int, max_statements: int, max_chars: int) -> None:
        self.source = source
        self.limits = (max_sessions, max_statements, max_chars)
        self.open: dict[int, _Open] = {}
        self.done: list[_Open] = []
        self.cut: list[CutPart] = []
        self.sessions = self.statements = self.chars = 0
        self.start: float | None = None

    def _new(self, thread: int, connected: bool, user: str | None, database: str | None) -> _Open:
        if thread in self.open:
            self._finish(self.open.pop(thread))
        if self.sessions >= self.limits[0]:
            raise SessionsError(
                f"more than {self.limits[0]:,} sessions (max_sessions): a concurrent replay takes at most "
                f"{self.limits[0]:,}; cut the log to a window (session {thread} is the one past it)"
            )
        one = _Open(
            Session(number=self.sessions, thread_id=thread, user=user, database=database, connected=connected)
        )
        self.sessions += 1
        self.open[thread] = one
        return one

    def connect(self, thread: int, user: str | None, database: str | None) -> None:
        self._new(thread, True, user, database)

    def quit(self, thread: int) -> None:
        one = self.open.pop(thread, None)
        if one is not None:
            one.session.quit = True
            self._finish(one)

    def offset(self, when: float | None) -> float:
        if when is None:
            return 0.0
        if self.start is None:
            self.start = when
        return when - self.start

    def statement(self, thread: int, sql: str, database: str | None, when: float | None, line: int) -> None:
        one = self.open.get(thread) or self._new(thread, False, None, database)
        self.statements += 1
        self.chars += len(sql)
        if self.statements > self.limits[1]:
            raise SessionsError(
                f"more than {self.limits[1]:,} statements (max_statements) at line {line}: "
                "cut the log to a window"
            )
        if self.chars > self.limits[2]:
            raise SessionsError(
                f"more than {self.limits[2]:,} characters of statements (max_chars) at line {line}: "
                "cut the log to a window"
            )
        if one.session.database is None and not one.session.statements:
            one.session.database = database
        marks, kind = boundary(sql)
        offset = max(one.last_offset, self.offset(when))
        one.last_offset = offset
        item = SessionStatement(
            sql=sql, database=database, order=one.read, offset_s=offset, line=line, boundary=marks
        )
        one.read += 1
        self._follow(one, item, kind)

    def _close(self, one: _Open, item: SessionStatement) -> None:
        item.transaction_end = True
        one.open, one.unit = False, []

    def _follow(self, one: _Open, item: SessionStatement, kind: str) -> None:
        statements = one.session.statements
        match item.boundary:
            case "begin":
                if one.open:  # BEGIN in a transaction commits it
                    item.transaction_end = True
                one.open, one.unit, one.seen_boundary = True, [item], True
            case "commit" | "rollback" if one.open:
                self._close(one, item)
                one.seen_boundary = True
            case "commit" | "rollback" if not one.seen_boundary and not one.session.connected:
                # the source began inside this session's transaction: drop its tail
                # session settings (SET, USE) are no part of a transaction: they stay
                head = [s for s in [*statements, item] if statement_kind(s.sql)[1] not in ("set", "use")]
                self.cut.append(_cut(one.session, head, "starts inside a transaction"))
                statements[:] = [s for s in statements if statement_kind(s.sql)[1] in ("set", "use")]
                one.seen_boundary = True
                return
            case "commit" | "rollback":
                pass  # no transaction open: the server does nothing
            case "autocommit_on":
                if one.open:
                    self._close(one, item)
                one.autocommit, one.seen_boundary = True, True
            case "autocommit_off":
                one.autocommit, one.seen_boundary = False, True
            case "implicit_commit":
                if one.open:
                    self._close(one, item)
                else:
                    item.transaction_end = True
            case _:
                if one.open:
                    one.unit.append(item)
                elif not one.autocommit and kind not in ("set", "use", "show", ""):
                    one.open, one.unit = True, [item]
                elif kind in DATA_KINDS:
                    item.transaction_end = True
        statements.append(item)

    def _finish(self, one: _Open) -> None:
        if one.open and one.unit and not one.session.quit:
            self.cut.append(_cut(one.session, one.unit, "ends inside a transaction"))
            dropped = {id(item) for item in one.unit}
            one.session.statements = [s for s in one.session.statements if id(s) not in dropped]
        one.open, one.unit = False, []
        self.done.append(one)

    def result(self) -> SessionLog:
        for one in list(self.open.values()):
            self._finish(one)
        self.open.clear()
        sessions = sorted(
            (one.session for one in self.done if one.session.statements), key=lambda s: s.number
        )
        offsets = [s.statements[-1].offset_s for s in sessions]
        return SessionLog(
            source=self.source,
            sessions=sessions,
            cut=sorted(self.cut, key=lambda c: (c.session, c.orders[0])),
            statements=sum(len(s.statements) for s in sessions),
            transactions=sum(s.transactions for s in sessions),
            duration_s=max(offsets, default=0.0),
        )


def _cut(session: Session, items: list[SessionStatement], reason: CutReason) -> CutPart:
    return CutPart(
        session=session.number,
        thread_id=session.thread_id,
        orders=[one.order for one in items],
        lines=[one.line for one in items],
        reason=reason,
        sample=" ".join(items[0].sql.split())[:200],
    )


def _event_time(event: LogEvent) -> float | None:
    start = event.headers.get("Start")  # MySQL's log_slow_extra: when the statement began
    when = log_time(start) if start else None
    if when is None and event.time:
        when = log_time(event.time)
    if when is None and event.timestamp is not None:
        when = float(event.timestamp)
    return when


def _quits(event: LogEvent) -> bool:
    return event.command == "Quit" or (event.command == "Admin" and event.text.rstrip(";").endswith(" Quit"))


def log_sessions(
    stream: TextIO,
    fmt: Literal["general", "slow"],
    *,
    max_sessions: int = MAX_SESSIONS,
    max_statements: int = MAX_STATEMENTS,
    max_chars: int = MAX_TEXT_CHARS,
) -> SessionLog:
    """The sessions of a general or slow log (`stream`: formats.open_log's file or text_stream),
    read as a stream (module docstring). Events without a thread id (a slow log without `Id:`) are
    refused: they name no session. SessionsError past a bound or on an unreadable record."""
    built = _Builder(fmt, max_sessions, max_statements, max_chars)
    try:
        for event in read_events(stream, fmt):
            if event.thread_id is None:
                raise SessionsError(
                    f"{fmt} log line {event.line}: the event names no session (no `Id:` / `Thread_id:`): "
                    "write the log with a server that logs connection ids"
                )
            if event.command == "Connect" and not event.text.startswith("Access denied"):
                built.connect(event.thread_id, event.user, event.database)
            elif _quits(event):
                built.quit(event.thread_id)
            elif event.command == "Init DB":
                built.statement(
                    event.thread_id, f"USE `{event.database}`", event.database, _event_time(event), event.line
                )
            elif event.is_statement and statement_kind(event.text)[1]:
                built.statement(event.thread_id, event.text, event.database, _event_time(event), event.line)
    except LogError as error:
        raise SessionsError(f"{fmt} log: {error}") from error
    return built.result()


def history_sessions(
    rows: Iterable[HistoryRow],
    *,
    max_sessions: int = MAX_SESSIONS,
    max_statements: int = MAX_STATEMENTS,
    max_chars: int = MAX_TEXT_CHARS,
) -> SessionLog:
    """The sessions of captured events_statements_history_long rows (any order: each thread's rows
    are read by EVENT_ID; rows without SQL_TEXT skipped). The table is a ring buffer: a thread whose
    first rows were overwritten starts cut, and its cut parts are listed (module docstring). The
    rows are sorted in memory, so they are bounded first: SessionsError past a bound."""
    kept: list[HistoryRow] = []
    threads: set[int] = set()
    for row in rows:
        if row.sql_text is None or not statement_kind(row.sql_text)[1]:
            continue
        threads.add(row.thread_id)
        if len(threads) > max_sessions or len(kept) >= max_statements:
            what = "sessions (max_sessions)" if len(threads) > max_sessions else "statements (max_statements)"
            limit = max_sessions if len(threads) > max_sessions else max_statements
            raise SessionsError(f"more than {limit:,} {what} in the history rows: capture a window")
        kept.append(row)
    built = _Builder("history", max_sessions, max_statements, max_chars)
    start = min((row.timer_start for row in kept), default=0)
    built.start = 0.0  # offsets are TIMER_START's from the earliest row
    for row in sorted(kept, key=lambda r: (r.thread_id, r.event_id)):
        sql = row.sql_text or ""
        built.statement(
            row.thread_id, sql, row.current_schema, (row.timer_start - start) / 1e12, row.event_id
        )
    return built.result()
