"""Query sources: a plain SQL file, a MySQL/MariaDB slow query log or a general query log -> the
statements to replay, each with its default database and fingerprint, sampled per fingerprint.

Formats as pt-query-digest reads them:
- slow log: `# Time:` / `# User@Host:` / `# Query_time:` headers, then optional `use db;` and
  `SET timestamp=N;` lines, then the statement up to its `;` (the server's own start-up banner lines
  are skipped);
- general log: `<time> <thread id> <Command>\\t<argument>` (MySQL: ISO time; MariaDB: `YYMMDD hh:mm:ss`
  or blank when unchanged); a line without that prefix continues the previous argument; `Query`
  entries are statements, `Init DB` and `Connect ... on db` set the thread's default database;
- plain SQL: split at each `;` outside quotes and comments (`_STATEMENT_END`, one regular-expression
  pass; sqlparse's split, which also keeps a compound statement's body whole, when a text of at most
  1 M characters creates a routine, trigger or event); `USE db` sets the default database of what follows.

A source holds at most `max_statements` statements (settings `replay_max_statements`): the
statement past it ends the reading with a SourceError naming the limit, before more is split or
fingerprinted. Reading is linear in the text: 200,000 `DO 1;` are refused in about a second, and a
50 M character log is read in seconds (tests/replay/test_query_log_bounds.py).

Replay is read-only by default: a statement that writes (fingerprint.is_read_only is False) is kept
out and listed in `skipped_writes`, unless allow_writes (disposable targets only).
"""

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

import sqlparse

from upgradelab.replay.fingerprint import fingerprint_id, shape
from upgradelab.settings import get_settings

SourceFormat = Literal["sql", "slow", "general"]
DEFAULT_SAMPLE = 10

_SLOW_HEADER = re.compile(
    r"^# (Time|User@Host|Query_time|Thread_id|Schema|QC_hit|Full_scan|Filesort|Rows_|Bytes_)"
)
_SLOW_BANNER = re.compile(
    r"^(\S+, Version: .* started with:|Tcp port: .*|Time\s+Id\s+Command\s+Argument)\s*$"
)
_USE = re.compile(r"^\s*use\s+`?([A-Za-z0-9_$]+)`?\s*;?\s*$", re.IGNORECASE)
_SET_TIMESTAMP = re.compile(r"^\s*SET\s+timestamp\s*=\s*\d+\s*;\s*$", re.IGNORECASE)
_SLOW_SCHEMA = re.compile(r"\bSchema: (\S+)")
_GENERAL_ENTRY = re.compile(
    r"^(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?|\d{6}\s+\d?\d:\d\d:\d\d)?"
    r"\s+(?P<thread>\d+)\s(?P<command>[A-Z][A-Za-z ]*?)\t(?P<argument>.*)$"
)
_CONNECT_DB = re.compile(r"\bon (\S+)")
# whole-line comments before a statement of a plain file (`/* ... */` stays: it may be a hint)
_LEADING_COMMENTS = re.compile(r"\A(?:\s*(?:--|#)[^\n]*\n)+")
# a statement ends at a `;` outside quotes and comments (possessive: no backtracking on a long string)
_STATEMENT_END = re.compile(
    r"/\*.*?\*/|--[^\n]*|\#[^\n]*|'(?:[^'\\]++|\\.|'')*+'|\"(?:[^\"\\]++|\\.|\"\")*+\"|`(?:[^`]++|``)*+`|(;)",
    re.DOTALL,
)
# a compound statement whose body holds `;` (BEGIN ... END): sqlparse's split keeps it whole; it
# lexes in Python per token (~1 MB/s), so only texts up to _SQLPARSE_CHARS go through it
_SQLPARSE_CHARS = 1_000_000
_COMPOUND = re.compile(r"\bCREATE\b[^;]*?\b(PROCEDURE|FUNCTION|TRIGGER|EVENT)\b", re.IGNORECASE)


class SourceError(ValueError):
    """The file is none of the three formats, or holds no statement."""


@dataclass(frozen=True)
class SourceStatement:
    """One statement to replay: its text, default database (None: the dataset's), fingerprint and id,
    first keyword, and its position in the source (0-based)."""

    sql: str
    database: str | None
    fingerprint: str
    fingerprint_id: str
    kind: str
    position: int


@dataclass
class ParsedSource:
    """`statements` to replay (at most `sample` per fingerprint), `skipped_writes` (statements that
    write, left out in read-only mode), `total` statements read and `classes` = fingerprints seen."""

    format: SourceFormat
    statements: list[SourceStatement] = field(default_factory=list)
    skipped_writes: list[SourceStatement] = field(default_factory=list)
    total: int = 0
    classes: int = 0


def detect_format(text: str) -> SourceFormat:
    """slow when a `# Query_time:` header is there, general when lines look like general log entries,
    otherwise plain SQL."""
    head = text[:200_000]
    if re.search(r"^# Query_time:", head, re.MULTILINE):
        return "slow"
    entries = sum(1 for line in head.splitlines()[:200] if _GENERAL_ENTRY.match(line))
    if entries and re.search(r"\tQuery\t|\sQuery\t", head):
        return "general"
    return "sql"


def _slow(text: str) -> Iterator[tuple[str, str | None]]:
    database: str | None = None
    buffer: list[str] = []
    for line in text.splitlines():
        if _SLOW_BANNER.match(line):
            continue
        if _SLOW_HEADER.match(line):
            if buffer:  # a statement without its closing ';' (the log was cut)
                yield "\n".join(buffer), database
                buffer = []
            schema = _SLOW_SCHEMA.search(line)
            if schema:
                database = schema[1]
            continue
        if not buffer:
            use = _USE.match(line)
            if use:
                database = use[1]
                continue
            if _SET_TIMESTAMP.match(line) or not line.strip():
                continue
        buffer.append(line)
        if line.rstrip().endswith(";"):
            yield "\n".join(buffer), database
            buffer = []
    if buffer:
        yield "\n".join(buffer), database


def _general(text: str) -> Iterator[tuple[str, str | None]]:
    entries: list[list[str]] = []  # [thread, command, argument]
    for line in text.splitlines():
        match = _GENERAL_ENTRY.match(line)
        if match:
            entries.append([match["thread"], match["command"].strip(), match["argument"]])
        elif entries and not _SLOW_BANNER.match(line):
            entries[-1][2] += "\n" + line
    databases: dict[str, str | None] = defaultdict(lambda: None)
    for thread, command, argument in entries:
        if command == "Init DB":
            databases[thread] = argument.strip() or None
        elif command == "Connect":
            on = _CONNECT_DB.search(argument)
            databases[thread] = on[1] if on else None
        elif command == "Query":
            use = _USE.match(argument)
            if use:
                databases[thread] = use[1]
            else:
                yield argument, databases[thread]


def _split(text: str) -> Iterator[str]:
    """Statements of a plain SQL text, each with its `;` (module docstring)."""
    if len(text) <= _SQLPARSE_CHARS and _COMPOUND.search(text):
        yield from sqlparse.split(text)
        return
    start = 0
    for match in _STATEMENT_END.finditer(text):
        if match[1]:
            yield text[start : match.end()].strip()
            start = match.end()
    if text[start:].strip():
        yield text[start:].strip()


def _plain(text: str) -> Iterator[tuple[str, str | None]]:
    database: str | None = None
    for statement in _split(text):
        statement = _LEADING_COMMENTS.sub("", statement)
        use = _USE.match(statement)
        if use:
            database = use[1]
        elif statement.strip().rstrip(";").strip():
            yield statement, database


def too_many(limit: int) -> str:
    """How a source over the statement limit is refused."""
    return (
        f"more than {limit:,} statements: a query log holds at most {limit:,} "
        "(setting UPGRADELAB_REPLAY_MAX_STATEMENTS); sample the log first (e.g. pt-query-digest --sample)"
    )


def parse_source(
    text: str,
    *,
    sample: int = DEFAULT_SAMPLE,
    allow_writes: bool = False,
    fmt: SourceFormat | None = None,
    max_statements: int | None = None,
) -> ParsedSource:
    """Statements of a source (format detected unless given), at most `sample` per fingerprint in
    source order; writes skipped unless allow_writes. SourceError when nothing is left to replay,
    or when the source holds more than `max_statements` (None: settings `replay_max_statements`)."""
    if sample < 1:
        raise SourceError("sample: at least 1 statement per fingerprint")
    limit = get_settings().replay_max_statements if max_statements is None else max_statements
    fmt = fmt or detect_format(text)
    raw = {"slow": _slow, "general": _general, "sql": _plain}[fmt](text)
    parsed = ParsedSource(fmt)
    taken: dict[str, int] = defaultdict(int)
    for position, (sql, database) in enumerate(raw):
        sql = sql.strip().rstrip(";").strip()
        if not sql:
            continue
        parsed.total += 1
        if parsed.total > limit:
            raise SourceError(too_many(limit))
        found = shape(sql)
        one = SourceStatement(
            sql, database, found.fingerprint, fingerprint_id(found.fingerprint), found.kind, position
        )
        if not allow_writes and not found.read_only:
            parsed.skipped_writes.append(one)
            continue
        taken[one.fingerprint_id] += 1
        if taken[one.fingerprint_id] <= sample:
            parsed.statements.append(one)
    parsed.classes = len(taken)
    if not parsed.statements:
        skipped = len(parsed.skipped_writes)
        why = f" ({skipped} writes skipped in read-only mode)" if skipped else ""
        raise SourceError(f"no statement to replay in this {fmt} source{why}")
    return parsed
