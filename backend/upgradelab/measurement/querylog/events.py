"""One entry of a query log, as pt-query-digest reads it, with what a replay of the log's sessions
needs: its thread, time, default database and every header field.

pt-query-digest's names are kept: `command` is pt's `cmd` for slow logs ("Query" or "Admin"), a
general log's own command there ("Query", "Execute", "Init DB", "Connect", "Quit", ...; pt counts
every one but Query as "Admin"); `text` is pt's `arg` for queries (the statement as logged, without
the `;` that ends it in a slow log) and for a slow log's admin commands ("administrator command:
Quit"); a general log's other commands keep their argument as written (an Execute its statement
with the values in it, Init DB its database); `pt_text()` gives pt's `arg` for every event.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

SLOW_COMMANDS = ("Query", "Admin")
# general log commands whose argument is a statement a server ran (Execute: a prepared statement
# with its values, as MySQL and MariaDB log it)
STATEMENT_COMMANDS = ("Query", "Execute")


@dataclass(frozen=True, slots=True)
class LogEvent:
    """A query log's event.

    command: "Query" / "Admin" (slow logs), the logged command (general logs; module docstring).
    text: the statement or argument as logged (module docstring).
    database: the default database it ran in: a slow log's `use db;`, else its `Schema:` header,
        else the previous event's (pt's --inherit-attributes); a general log's thread's (its Connect
        `on db`, Init DB, or a `USE db` query); None when none is known. Backquotes removed.
    thread_id: the connection id (`Id:` of a slow log's User@Host line, `Thread_id:`, a general
        log's thread column); None when the log gives none.
    time: the event's time as written (`# Time:` value, a general log's first column), the previous
        event's when the log leaves it out (MariaDB writes it only when it changes); None before any.
    user, host, ip: a slow log's `# User@Host:` (host: the ip when no name), a general log's Connect.
    headers: every `Name: value` of its slow-log header lines, and `SET timestamp=` /
        `SET insert_id=` / `SET last_insert_id=` values, as written (Query_time, Lock_time,
        Rows_sent, Rows_examined, Rows_affected, Bytes_sent, QC_hit, Full_scan, Tmp_tables,
        Pages_accessed, InnoDB_IO_r_ops, Start, End, Schema, timestamp, ...); a later line's value of
        a repeated name wins, as in pt-query-digest. Empty for general logs.
    line: the 1-based line of the log where the event starts.
    """

    command: str
    text: str
    database: str | None = None
    thread_id: int | None = None
    time: str | None = None
    user: str | None = None
    host: str | None = None
    ip: str | None = None
    headers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    line: int = 1

    @property
    def is_statement(self) -> bool:
        """Whether `text` is a statement the server ran (a slow log's Query, a general log's Query
        or Execute), rather than an admin command or a session's event."""
        return self.command in STATEMENT_COMMANDS

    def pt_command(self) -> str:
        """pt-query-digest's `cmd`: "Query" for a query, "Admin" otherwise."""
        return "Query" if self.command == "Query" else "Admin"

    def pt_text(self) -> str:
        """pt-query-digest's `arg`: the statement, or `administrator command: <command>` for a
        general log's other commands (Connect refused: the refusal)."""
        if self.command in SLOW_COMMANDS or self.command == "Query":
            return self.text
        if self.command == "Connect" and self.text.startswith("Access denied"):
            return f"administrator command: {self.text}\n"  # pt keeps the line's end there
        return f"administrator command: {self.command}"

    def number(self, name: str) -> float | None:
        """A header field as a number (`Query_time` in seconds, `Rows_examined`, `timestamp` from
        `SET timestamp=`, ...); None when the event has none or it is not a number (Yes/No fields)."""
        value = self.headers.get(name)
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            return None

    @property
    def query_time(self) -> float | None:
        """`Query_time` in seconds (None: not a slow log, or no such header)."""
        return self.number("Query_time")

    @property
    def lock_time(self) -> float | None:
        """`Lock_time` in seconds."""
        return self.number("Lock_time")

    @property
    def rows_sent(self) -> int | None:
        """`Rows_sent`."""
        return _whole(self.number("Rows_sent"))

    @property
    def rows_examined(self) -> int | None:
        """`Rows_examined`."""
        return _whole(self.number("Rows_examined"))

    @property
    def rows_affected(self) -> int | None:
        """`Rows_affected` (MariaDB, Percona Server)."""
        return _whole(self.number("Rows_affected"))

    @property
    def timestamp(self) -> int | None:
        """`SET timestamp=N`: the statement's start in Unix seconds, as the server logged it."""
        return _whole(self.number("timestamp"))


def _whole(value: float | None) -> int | None:
    return None if value is None else int(value)
