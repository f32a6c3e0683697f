"""The shapes of a workload's sessions as they ran (sessions.py reads them; session_driver.py runs
them): a `SessionLog` of `Session`s of `SessionStatement`s, the `CutPart`s a source cut, a
`HistoryRow` of events_statements_history_long, the bounds and `SessionsError`."""

from typing import Literal

from pydantic import BaseModel, Field

MAX_SESSIONS = 10_000
MAX_STATEMENTS = 1_000_000
MAX_TEXT_CHARS = 256 << 20

SessionSource = Literal["general", "slow", "history"]
Boundary = Literal["begin", "commit", "rollback", "autocommit_off", "autocommit_on", "implicit_commit"]
CutReason = Literal["starts inside a transaction", "ends inside a transaction"]


class SessionsError(ValueError):
    """A source past a bound (the message names it: max_sessions, max_statements, max_chars), or
    one that cannot be read (a log record past the reader's bound, a history row without its
    thread or event)."""


class SessionStatement(BaseModel):
    """One statement of a session as it ran.

    sql: the statement as the source holds it (without a slow log's `;`); database: the session's
    default database when it ran (None: unknown, the replay's own); order: its 0-based place in the
    session as read (cut statements keep their numbers, so the kept ones may skip some); offset_s:
    seconds from the source's earliest time (float, never less than the session's previous
    statement's); line: where the source holds it (a log's 1-based line, a history row's EVENT_ID);
    boundary: what it does to the session's transaction, if anything; transaction_end: running it
    ends a transaction (commits or rolls back one, commits one implicitly, or is one of its own: a
    data statement in autocommit mode)."""

    sql: str
    database: str | None = None
    order: int
    offset_s: float = Field(ge=0)
    line: int
    boundary: Boundary | None = None
    transaction_end: bool = False


class Session(BaseModel):
    """One session (a connection) of the source: `thread_id` as the source names it (the server's
    connection id, performance_schema's THREAD_ID), `number` its 0-based place in the source (two
    sessions may share a thread id across a server restart), its user and first default database
    where the source says, its statements in order, and whether the source saw it connect and quit."""

    number: int
    thread_id: int
    user: str | None = None
    database: str | None = None
    statements: list[SessionStatement] = Field(default_factory=list)
    connected: bool = False
    quit: bool = False

    @property
    def transactions(self) -> int:
        """Transactions its statements end (SessionStatement.transaction_end)."""
        return sum(one.transaction_end for one in self.statements)


class CutPart(BaseModel):
    """Statements of a session dropped because the source cut it (module docstring): the session's
    number and thread id, the statements' orders and source lines, why, and the first statement's
    text (up to 200 characters) as a sample."""

    session: int
    thread_id: int
    orders: list[int]
    lines: list[int]
    reason: CutReason
    sample: str


class SessionLog(BaseModel):
    """A source's sessions (those with a statement left, in the order they first appear), what was
    cut from them (`cut`), and counts: `statements` kept, `transactions` their statements end,
    `duration_s` from the earliest to the latest offset. `cut` empty: every session is whole."""

    source: SessionSource
    sessions: list[Session]
    cut: list[CutPart] = Field(default_factory=list)
    statements: int = 0
    transactions: int = 0
    duration_s: float = 0.0


class HistoryRow(BaseModel):
    """A row of performance_schema.events_statements_history_long: THREAD_ID, EVENT_ID, TIMER_START
    (picoseconds since the server started), SQL_TEXT (None: no text, e.g. a COM_PING) and
    CURRENT_SCHEMA."""

    thread_id: int
    event_id: int
    timer_start: int
    sql_text: str | None
    current_schema: str | None = None
