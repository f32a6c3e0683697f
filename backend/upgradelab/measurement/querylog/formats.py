"""Which kind of query source a text is, and its events as a stream.

A source is a slow query log (a `# Query_time:` or `# User@Host:` header line), a general query
log (general-log entries with a statement command) or plain SQL; the first HEAD_CHARS characters
decide. `open_log` opens a file for reading as pt-query-digest reads it: line ends kept as written
(only \\n ends a line), UTF-8 with undecodable bytes kept (`surrogateescape`), so a fingerprint's
MD5 is of the bytes the log holds.
"""

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, TextIO

from upgradelab.measurement.querylog.events import LogEvent
from upgradelab.measurement.querylog.general import read_general
from upgradelab.measurement.querylog.slow import read_slow

SourceFormat = Literal["sql", "slow", "general"]
HEAD_CHARS = 200_000
_SLOW_HEADER = re.compile(r"^# (?:Query_time|User@Host): ", re.MULTILINE)
_GENERAL_ENTRY = re.compile(
    r"^(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?|\d{6}\s+\d?\d:\d\d:\d\d)?"
    r"\s+\d+\s(?:Query|Execute|Connect|Init DB|Prepare|Quit)\t",
    re.MULTILINE | re.ASCII,
)


def detect_format(head: str) -> SourceFormat:
    """slow when the head holds a slow-log header line, general when it holds general-log entries
    with a statement command (Query or Execute), otherwise plain SQL."""
    if _SLOW_HEADER.search(head):
        return "slow"
    entries = [m[0] for m in _GENERAL_ENTRY.finditer(head)]
    if any(entry.rstrip("\t").endswith(("Query", "Execute")) for entry in entries):
        return "general"
    return "sql"


def open_log(path: Path) -> TextIO:
    """A log file opened as pt-query-digest reads it (module docstring); the caller closes it."""
    return open(path, encoding="utf-8", errors="surrogateescape", newline="\n")


def text_stream(text: str) -> TextIO:
    """A text as a stream the readers take (only \\n ends a line)."""
    return io.StringIO(text, newline="\n")


def read_events(stream: TextIO, fmt: Literal["slow", "general"]) -> Iterator[LogEvent]:
    """The events of a slow or general log stream (slow.py, general.py)."""
    return read_slow(stream) if fmt == "slow" else read_general(stream)
