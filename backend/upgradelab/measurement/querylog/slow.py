"""Slow query logs of every dialect, read as pt-query-digest 3.2.1 reads them (SlowLogParser and
its pipeline: attribute aliases, inherited attributes, backquotes), restated here.

Dialects: MySQL 5.7 / 8.0 / 8.4 / 9.x (`# Time:` ISO, `Id:` on the User@Host line,
`log_slow_extra`'s fields on the Query_time line), Percona Server (`# Thread_id: N  Schema: db
Last_errno: 0  Killed: 0`, `# QC_Hit:`, `# Filesort:`, `#   InnoDB_IO_r_ops:`, `# No InnoDB
statistics available for this query`, `# Log_slow_rate_type:`), MariaDB (`# Thread_id: N  Schema:
db  QC_hit: No`, `# Rows_affected:`, `# Pages_accessed:`, `# Tmp_tables:`, `# Full_scan:`,
`# Filesort:`, `# explain:` lines and bare `#` lines of log_slow_verbosity=explain, `# Time:` only
when the second changes), RDS and Aurora (MySQL's), and pt-query-digest's own `--output slowlog`.

How an event is found (pt's rules):
- The log is cut into records at each `;` that ends a line followed by a line starting with `#`
  (a statement's lines stay whole however many they are, `;` inside included). A server's start-up
  banner (`.../mysqld, Version: ... started with:`, `Tcp port: ...`, `Time  Id Command  Argument`)
  is removed wherever it is, and the record cut again there. MariaDB 10.11+ writes `mariadbd,
  Version:`: removed too (pt 3.2.1 knows only `mysqld`; mid-log, after a restart, it reads that
  banner and the next event's headers into the previous statement).
- In a record, lines starting with `#`, `use ` or `SET timestamp` / `SET insert_id` /
  `SET last_insert_id` (as the server writes them: case-sensitive) are its header; the first other
  line starts the statement, which runs to the record's end. So every `#` line before the statement
  is a header, never a statement.
- Header lines: `# Time:` (the time), `# User@Host: user[user] @ host [ip]  Id: N`,
  `# administrator command: X` (an Admin event; MySQL writes it after `SET timestamp=...;`, in the
  next record: read from there as pt does), `# Name: value  Name: value ...` (each a header field;
  MariaDB's empty `Schema:` dropped), the first `use db;` (the database) and the first `SET ...`
  (its `name=value` pairs).
- A record of header lines only, whose next line looks like another header (`Name: `), is an event
  with the statement `/* No query */`, as pt-query-digest counts it; an event without a statement
  (a log cut short) is dropped; a statement `0` is dropped (pt's falsy `arg`).
- The database is `use db;`, else `Schema:`, else the previous event's; the time, when absent, is
  the previous event's (pt-query-digest's --attribute-aliases db|Schema and --inherit-attributes
  db,ts defaults). One backquote at each end of a database name is removed.
"""

import re
from collections.abc import Iterator
from types import MappingProxyType
from typing import TextIO

from upgradelab.measurement.querylog.banner import BANNER_LINES
from upgradelab.measurement.querylog.events import LogEvent
from upgradelab.measurement.querylog.records import Records

_SEPARATOR = ";\n#"
_A = re.ASCII
_HEADER_START = ("#", "use ", "SET last_insert_id", "SET insert_id", "SET timestamp")
# pt keeps the first 15 or 19 characters; the fraction and zone that follow are kept here too
_TIME = re.compile(r"# Time: ((?:[0-9: ]{15})|(?:[-0-9: T]{19}))((?:\.\d+)?(?:Z|[-+]\d\d:\d\d)?)", _A)
_USER_HOST = re.compile(r"# User@Host: ([^\[]+|\[[^\[]+\]).*?@ (\S*) \[(.*)\]\s*(?:Id:\s*(\d+))?", _A)
_ADMIN = re.compile(r"# (administrator command:.*)$")
_ADMIN_PREFIX = re.compile(r"^#\s+", _A)
_FIELDS_LINE = re.compile(r"# +[A-Z][A-Za-z_]+: \S", _A)
_EMPTY_SCHEMA = re.compile(r"Schema:\s+\w+: ", _A)
_EMPTY_SCHEMA_CUT = re.compile(r"Schema:\s+", _A)
_FIELD = re.compile(r"(\w+):\s+(\S+|\Z)", _A)
_USE = re.compile(r"use ([^;]+)")
_SET = re.compile(r"SET\s+([^;]*)", _A)
_SET_SPLIT = re.compile(r",|\s*=\s*", _A)
_LOOKS_LIKE_HEADER = re.compile(r"\s*[A-Z][a-z_]+: ", _A)
_RECORD_END = re.compile(r";\n#?(?=\n?\Z)")
_LEADING_SPACE = re.compile(r"\A\s+", _A)


def _unquote(name: str) -> str:
    """pt's sanitize_event: one backquote off each end (`$` also before a final newline)."""
    if name.startswith("`"):
        name = name[1:]
    if name.endswith("`"):
        return name[:-1]
    if name.endswith("`\n"):
        return name[:-2] + "\n"
    return name


class _Event:
    """What one record says, before the pipeline's aliases and inheritance."""

    __slots__ = ("command", "fields", "host", "ip", "line", "text", "time", "use", "user")

    def __init__(self, line: int):
        self.command = "Query"
        self.text: str | None = None
        self.time: str | None = None
        self.user: str | None = None
        self.host: str | None = None
        self.ip: str | None = None
        self.use: str | None = None
        self.fields: dict[str, str] = {}
        self.line = line


def _user_host(event: _Event, found: re.Match[str]) -> None:
    event.user, host, event.ip, thread = found[1] or None, found[2], found[3] or None, found[4]
    event.host = host or event.ip
    if thread:  # MySQL 5.6+'s `Id:`, a field as pt keeps it (a later `# Thread_id:` wins)
        event.fields["Thread_id"] = thread


class SlowLog:
    """The events of a slow log stream (`events()`), in the log's order."""

    def __init__(self, stream: TextIO):
        self._records = Records(stream)
        self._pending: list[tuple[str, int]] = []

    def _next_record(self) -> tuple[str, int] | None:
        if self._pending:
            return self._pending.pop(0)
        line = self._records.line
        record = self._records.read(_SEPARATOR)
        return None if record is None else (record, line)

    def events(self) -> Iterator[LogEvent]:
        """Every event (module docstring), each with the database and time it inherits."""
        database: str | None = None
        time: str | None = None
        while (found := self._next_record()) is not None:
            event = self._parse(*found)
            if event is None or not event.text or event.text == "0":
                continue
            own = event.use if event.use is not None else event.fields.get("Schema")
            if own is not None:
                database = _unquote(own)
            if event.time is not None:
                time = event.time
            fields = event.fields
            thread = fields.get("Thread_id", "")
            yield LogEvent(
                command=event.command,
                text=event.text,
                database=database or None,
                thread_id=int(thread) if thread.isdigit() else None,
                time=time,
                user=event.user,
                host=event.host,
                ip=event.ip,
                headers=MappingProxyType(fields),
                line=event.line,
            )

    def _split_banner(self, record: str, line: int) -> str:
        """The record without banner lines; when that joins two events, the second and later
        ones wait in the pending queue (pt re-splits the record)."""
        cleaned = BANNER_LINES.sub("", record)
        if cleaned == record:
            return record
        pieces = cleaned.split(_SEPARATOR)
        while pieces and pieces[-1] == "":
            pieces.pop()
        if len(pieces) <= 1:
            return cleaned
        # the lines of later pieces: counted in the cleaned record (banner lines are not events)
        starts, at = [], line
        for piece in pieces:
            starts.append(at)
            at += piece.count("\n") + 1
        self._pending[0:0] = list(zip(pieces[1:], starts[1:], strict=True))
        return pieces[0]

    def _parse(self, record: str, line: int) -> _Event | None:
        if "ersion" in record or "ort:" in record or "Command" in record:  # banner.py's lines (fast test)
            record = self._split_banner(record, line)
        if not record.startswith("#"):
            record = "#" + record
        if record.endswith(_SEPARATOR):
            record = record[: -len(_SEPARATOR)]
        else:
            record = _RECORD_END.sub("", record, count=1)
        event = _Event(line)
        got_ts = got_uh = got_ac = got_db = got_set = found_arg = False
        start, length = 0, len(record)
        while True:  # each line; none after a final newline (Perl's /m `^`)
            newline = record.find("\n", start)
            end = length if newline < 0 else newline
            text = record[start:end]
            if not text.startswith(_HEADER_START):
                event.text = record[start:]
                break
            if not got_ts and (ts := _TIME.match(text)):
                event.time, got_ts = ts[1] + ts[2], True
                if not got_uh and (uh := _USER_HOST.search(text)):
                    _user_host(event, uh)
                    got_uh = True
            elif not got_uh and (uh := _USER_HOST.search(text)):
                _user_host(event, uh)
                got_uh = True
            elif not got_ac and _ADMIN.match(text):
                event.command, event.text = "Admin", _ADMIN_PREFIX.sub("", text, count=1)
                found_arg = got_ac = True
            elif _FIELDS_LINE.match(text):
                if _EMPTY_SCHEMA.search(text):
                    text = _EMPTY_SCHEMA_CUT.sub("", text, count=1)
                event.fields.update(_FIELD.findall(text))
            elif not got_db and (use := _USE.match(text)):
                event.use, got_db = use[1], True
            elif not got_set and (setting := _SET.match(text)):
                parts = _SET_SPLIT.split(setting[1])
                while parts and parts[-1] == "":
                    parts.pop()
                event.fields.update(zip(parts[::2], parts[1::2], strict=False))
                got_set = True
            if not found_arg and end == length:
                return self._look_ahead(event)
            if newline < 0 or newline + 1 == length:
                break
            start = newline + 1
        return event

    def _look_ahead(self, event: _Event) -> _Event | None:
        """A record of header lines only: pt reads the next line (up to `;` and a newline). A
        header-looking one (`Name: ...`) makes this a `/* No query */` event and goes back, with
        the rest of its record, to be read next; anything else is this event's admin command."""
        line = self._records.line
        ahead = self._records.read(";\n")
        if ahead is None:
            return None
        if _LOOKS_LIKE_HEADER.match(ahead):
            rest = self._records.read(_SEPARATOR) or ""
            self._pending.append((ahead + rest, line))
            event.command, event.text = "Query", "/* No query */"
            return event
        if ahead.endswith(";\n"):
            ahead = ahead[:-2]
        event.command, event.text = "Admin", _LEADING_SPACE.sub("", ahead)
        return event


def read_slow(stream: TextIO) -> Iterator[LogEvent]:
    """The events of a slow query log (module docstring: every dialect, pt-query-digest's rules),
    streamed from `stream` in bounded memory (records.py; LogError past its bound)."""
    return SlowLog(stream).events()
