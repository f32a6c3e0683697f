"""A server binary's compiled-in defaults, from its own `--no-defaults --verbose --help` (the table
after "Variables (--variable-name=value)"), and how a captured SHOW GLOBAL VARIABLES value is compared
with them.

The table and SHOW GLOBAL VARIABLES spell values differently: names with `-` / `_`, booleans
TRUE/FALSE / ON/OFF, directories with or without their trailing `/`, sets (sql_mode) in any order,
"(No default value)" for none. `same_value` compares after `normalized`; a value the help has no
default for, or a variable the help does not list (version, hostname: not options), is "unknown",
never "differs". Defaults the server computes from its host at start (the help prints the lab host's
figure) are flagged `HOST_DEPENDENT`: their difference may be the hardware, not the configuration.
"""

import re
from dataclasses import dataclass

# The help's table: a dashed line, then `name<spaces>value` rows up to a blank line.
_TABLE_START = re.compile(r"^-{20,} -+$")
_VERSION_LINE = re.compile(r"^(\S+)\s+Ver\s+(\S+)", re.MULTILINE)
NO_DEFAULT = "(No default value)"
_BOOLEANS = {"TRUE": "ON", "FALSE": "OFF"}
# Variables whose value is a comma-separated set (order not significant).
_SETS = {"sql_mode", "optimizer_switch", "old_mode", "log_slow_filter", "log_disabled_statements"}

# Defaults computed from the host at start (CPUs, memory): MariaDB's thread_pool_size (CPUs), MySQL
# 8.4's InnoDB sizing (innodb_buffer_pool_instances, innodb_page_cleaners, innodb_read_io_threads,
# innodb_parallel_read_threads, innodb_purge_threads, innodb_log_writer_threads, temptable_max_ram:
# MySQL 8.4 release notes, "InnoDB system variable default changes"); back_log and the table caches
# are sized from max_connections and the open-files limit.
HOST_DEPENDENT = frozenset(
    {
        "thread_pool_size",
        "innodb_buffer_pool_instances",
        "innodb_page_cleaners",
        "innodb_read_io_threads",
        "innodb_write_io_threads",
        "innodb_parallel_read_threads",
        "innodb_purge_threads",
        "innodb_log_writer_threads",
        "innodb_redo_log_capacity",
        "temptable_max_ram",
        "back_log",
        "open_files_limit",
        "table_open_cache",
        "table_open_cache_instances",
        "table_definition_cache",
        "hostname",
    }
)


@dataclass(frozen=True)
class BinaryDefaults:
    """A binary's defaults: `server` ("mariadbd 10.11.19-MariaDB-0+deb12u1"), `version` (its
    `Ver` field) and `values` {underscored name: value as printed, None for "(No default value)"}."""

    server: str
    version: str
    values: dict[str, str | None]


def parse_defaults(text: str) -> BinaryDefaults:
    """BinaryDefaults from `--no-defaults --verbose --help` output (MySQL 5.7-9.x, MariaDB 10-11)."""
    found = _VERSION_LINE.search(text)
    server = f"{found[1].rsplit('/', 1)[-1]} {found[2]}" if found else "the server"
    version = found[2] if found else ""
    values: dict[str, str | None] = {}
    in_table = False
    for line in text.splitlines():
        if _TABLE_START.match(line):
            in_table = True
            continue
        if not in_table:
            continue
        if not line.strip():
            break  # the table ends at the first blank line (the help's closing words follow)
        name, _, value = line.partition(" ")
        if not name or line.startswith(" "):
            continue
        value = value.strip()
        values[name.replace("-", "_").lower()] = None if value == NO_DEFAULT else value
    return BinaryDefaults(server, version, values)


def normalized(name: str, value: str) -> str:
    """The comparable form of `value` of variable `name`: booleans ON/OFF, no trailing `/`, sets
    sorted, upper case (names and keywords are case-insensitive where the servers print them)."""
    text = value.strip()
    text = _BOOLEANS.get(text.upper(), text)
    if len(text) > 1:
        text = text.rstrip("/")
    if name in _SETS:
        text = ",".join(sorted(part.strip() for part in text.split(",") if part.strip()))
    return text.upper()


def same_value(name: str, value: str, default: str) -> bool:
    """Whether a SHOW GLOBAL VARIABLES value is the binary's default (see `normalized`)."""
    return normalized(name, value) == normalized(name, default)


def series(version: str) -> str:
    """ "10.11" of "10.11.19-MariaDB-0+deb12u1", "9.7" of "9.7.0": the release series."""
    found = re.match(r"^(\d+)\.(\d+)", version.strip())
    return f"{found[1]}.{found[2]}" if found else ""
