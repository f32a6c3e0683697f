"""Query sources: a plain SQL file, a MySQL/MariaDB slow query log or a general query log -> the
statements to replay, each with its default database and query class, sampled per class.

Logs are read as pt-query-digest reads them (measurement/querylog/: every slow-log dialect, general
logs, each entry a LogEvent with its thread, time, database and header fields); a slow log's queries
and a general log's queries and executed prepared statements are the statements (admin commands,
`USE db` and comment-only entries such as pt's `/* No query */` are not). Plain SQL: split at each
`;` outside quotes and comments (`_STATEMENT_END`, one regular-expression pass; sqlparse's split,
which also keeps a compound statement's body whole, when a text of at most 1 M characters creates a
routine, trigger or event); `USE db` sets the default database of what follows.

Each statement's class is pt-query-digest's: its fingerprint and class ID (measurement/pt_fingerprint.py,
of the statement as the log holds it), so a class the replay reports is found in the team's
pt-query-digest report by its ID (`fingerprint_id` = `class_id`). Its kind and whether it only reads
come from the lab's own normalization (measurement/fingerprint.py `shape`: version comments and all).

A source holds at most `max_statements` statements (settings `replay_max_statements`): the
statement past it ends the reading with a SourceError naming the limit, before more is read or
fingerprinted. Reading is linear in the text: 200,000 `DO 1;` are refused in about a second, and a
50 M character log is read in seconds (tests/replay/test_query_log_bounds.py).

Replay is read-only by default: a statement that writes (fingerprint.is_read_only is False) is kept
out and listed in `skipped_writes`, unless allow_writes (disposable targets only).
"""

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal, TextIO

import sqlparse

from upgradelab.measurement.fingerprint import shape
from upgradelab.measurement.pt_fingerprint import class_id, pt_fingerprint
from upgradelab.measurement.querylog.formats import (
    HEAD_CHARS,
    SourceFormat,
    detect_format,
    read_events,
    text_stream,
)
from upgradelab.measurement.querylog.records import LogError
from upgradelab.settings import get_settings

__all__ = ["DEFAULT_SAMPLE", "ParsedSource", "SourceError", "SourceFormat", "SourceStatement", "parse_source"]

DEFAULT_SAMPLE = 10

_USE = re.compile(r"^\s*use\s+`?([A-Za-z0-9_$]+)`?\s*;?\s*$", re.IGNORECASE)
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
    """One statement to replay: its text, default database (None: the dataset's), fingerprint and
    fingerprint_id (the replay groups by them: pt-query-digest's fingerprint and class ID since
    issue 47; before, stored replays hold the lab's own normalized text and the first 16 hex digits
    of its sha256), first keyword, and its position in the source (0-based); `class_id`: its
    pt-query-digest class ID (measurement/pt_fingerprint.py; None in replays stored before issue 47)."""

    sql: str
    database: str | None
    fingerprint: str
    fingerprint_id: str
    kind: str
    position: int
    class_id: str | None = None


@dataclass
class ParsedSource:
    """`statements` to replay (at most `sample` per fingerprint), `skipped_writes` (statements that
    write, left out in read-only mode), `total` statements read and `classes` = fingerprints seen."""

    format: SourceFormat
    statements: list[SourceStatement] = field(default_factory=list)
    skipped_writes: list[SourceStatement] = field(default_factory=list)
    total: int = 0
    classes: int = 0


def _log_statements(stream: TextIO, fmt: Literal["slow", "general"]) -> Iterator[tuple[str, str | None]]:
    """A log's statements as logged (pt's `arg`) with their default database: a slow log's queries,
    a general log's queries and executed prepared statements."""
    for event in read_events(stream, fmt):
        if event.is_statement:
            yield event.text, event.database


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
    source: str | TextIO,
    *,
    sample: int = DEFAULT_SAMPLE,
    allow_writes: bool = False,
    fmt: SourceFormat | None = None,
    max_statements: int | None = None,
) -> ParsedSource:
    """Statements of a source (a text, or a seekable text stream such as formats.open_log's file;
    its format detected from the first HEAD_CHARS characters unless given), at most `sample` per
    class in source order; writes skipped unless allow_writes. SourceError when nothing is left to
    replay, when the source holds more than `max_statements` (None: settings
    `replay_max_statements`), or when a log entry is past the reader's bound (records.py)."""
    if sample < 1:
        raise SourceError("sample: at least 1 statement per fingerprint")
    limit = get_settings().replay_max_statements if max_statements is None else max_statements
    stream = text_stream(source) if isinstance(source, str) else source
    if fmt is None:
        fmt = detect_format(stream.read(HEAD_CHARS))
        stream.seek(0)
    raw = _plain(stream.read()) if fmt == "sql" else _log_statements(stream, fmt)
    parsed = ParsedSource(fmt)
    taken: dict[str, int] = defaultdict(int)
    try:
        for logged, database in raw:
            sql = logged.strip().rstrip(";").strip()
            found = shape(sql)
            if found.kind in ("", "use"):  # a comment only (pt's `/* No query */`), or a session's USE
                continue
            parsed.total += 1
            if parsed.total > limit:
                raise SourceError(too_many(limit))
            text = pt_fingerprint(sql if fmt == "sql" else logged)
            class_ = class_id(text)
            one = SourceStatement(sql, database, text, class_, found.kind, parsed.total - 1, class_)
            if not allow_writes and not found.read_only:
                parsed.skipped_writes.append(one)
                continue
            taken[class_] += 1
            if taken[class_] <= sample:
                parsed.statements.append(one)
    except LogError as error:
        raise SourceError(f"{fmt} log: {error}") from error
    parsed.classes = len(taken)
    if not parsed.statements:
        skipped = len(parsed.skipped_writes)
        why = f" ({skipped} writes skipped in read-only mode)" if skipped else ""
        raise SourceError(f"no statement to replay in this {fmt} source{why}")
    return parsed
