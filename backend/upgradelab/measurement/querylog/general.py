"""General query logs of MySQL and MariaDB, read as pt-query-digest 3.2.1 reads them
(GeneralLogParser and its pipeline), restated here, with each statement's thread, time and default
database as the session had it.

An entry is `<time> <thread id> <Command>\\t<argument>`: time `2024-05-01T10:00:00.123456Z` (MySQL
5.7+, `+02:00` with log_timestamps=SYSTEM) or `240501 10:00:00` (MariaDB, MySQL 5.6 and before),
left blank while it stays the same (MariaDB); commands Connect, Query, Init DB, Prepare, Execute,
Close stmt, Quit, ... A line that is not an entry continues the previous entry's argument (a
multi-line statement); pt-query-digest joins them to Query arguments only and drops them
elsewhere, here an Execute or Prepare keeps them too. A server's start-up banner (`... Version:
... started with:`, `Tcp port:`, `Time  Id Command  Argument`) is none of these, wherever it is
(pt 3.2.1 joins one after a restart to the last statement before it).

Events: a Query is a statement (pt's Query); every other command is pt's "Admin" event
(`administrator command: Execute`), kept with its argument (an Execute's statement with its values,
Prepare's with `?`). A Query with an empty argument is no event (pt's pipeline drops it).

Default database, per thread: Connect's `on db`, Init DB's database, and here also a `USE db`
query (pt keeps a thread's database from Connect and Init DB only, and gives an event of a thread
without one the previous event's, from any thread: the tests check every other database against
pt's). Time: the entry's, else the previous entry's (pt's --inherit-attributes ts).
"""

import re
from collections.abc import Iterator
from typing import TextIO

from upgradelab.measurement.querylog.banner import BANNER_LINE
from upgradelab.measurement.querylog.events import LogEvent

_A = re.ASCII
_ENTRY = re.compile(
    r"(?:(\d{6}\s+\d{1,2}:\d\d:\d\d|\d{4}-\d{1,2}-\d{1,2}T\d\d:\d\d:\d\d\.\d+(?:Z|[-+]?\d\d:\d\d)?))?"
    r"\s+(?:\s*(\d+))\s(\w+)\s+(.*)\Z",
    _A | re.DOTALL,
)
_CONNECT_DB = re.compile(r"on (\S+)", _A)
_FIRST_WORD = re.compile(r"\S+", _A)
_INIT_DB = re.compile(r"\ADB\s+", _A)
_USE = re.compile(r"\s*use\s+`?([^`\s;]+)`?\s*;?\s*\Z", _A | re.IGNORECASE)


def _entry(line: str) -> re.Match[str] | None:
    """The entry a line starts (pt: a thread id and a command, neither "0"), else None."""
    found = _ENTRY.match(line)
    if found is None or found[2] == "0" or found[3] == "0":
        return None
    return found


def _unquote(name: str | None) -> str | None:
    if not name:
        return None
    return name.removeprefix("`").removesuffix("`") or None


def read_general(stream: TextIO) -> Iterator[LogEvent]:
    """The events of a general query log (module docstring), streamed line by line from `stream`
    (a text stream whose lines end with \\n, e.g. a file opened with newline="\\n")."""
    lines = iter(stream)
    databases: dict[int, str | None] = {}
    time: str | None = None
    number = 0
    line = next(lines, None)
    while line is not None:
        number += 1
        found = _entry(line)
        if found is None:
            line = next(lines, None)
            continue
        start = number
        stamp, thread_text, command, argument = found.groups()
        # the lines up to the next entry continue this one's argument
        line = next(lines, None)
        while line is not None and _entry(line) is None:
            number += 1
            if not BANNER_LINE.match(line):
                argument += line
            line = next(lines, None)
        argument = argument.removesuffix("\n")
        thread = int(thread_text)
        time = stamp or time
        user = host = None
        if command == "Query":
            if not argument or argument == "0":
                continue
            use = _USE.match(argument)
            if use:
                databases[thread] = use[1]
        elif command == "Connect" and not argument.startswith("Access denied"):
            who = _FIRST_WORD.search(argument)
            user, _, host = (who[0] if who else "").partition("@")
            on = _CONNECT_DB.search(argument)
            databases[thread] = _unquote(on[1] if on else None)
        elif command == "Init":
            command = "Init DB"
            argument = _INIT_DB.sub("", argument, count=1)
            name = _FIRST_WORD.search(argument)
            databases[thread] = _unquote(name[0] if name else None)
        yield LogEvent(
            command=command,
            text=argument,
            database=databases.get(thread),
            thread_id=thread,
            time=time,
            user=user or None,
            host=host or None,
            line=start,
        )
