"""A server binary's compiled-in defaults, from its own `--no-defaults --verbose --help` (the table
after "Variables (--variable-name=value)"), and how a captured SHOW GLOBAL VARIABLES value is compared
with them.

The table and SHOW GLOBAL VARIABLES spell values differently: names with `-` / `_`, booleans
TRUE/FALSE / ON/OFF, directories with or without their trailing `/`, sets (sql_mode) in any order,
"(No default value)" for none, numbers as 10 / 10.000000. `same_value` compares after `normalized`;
a value the help has no default for, a variable the help does not list (hostname: not an option) or
one whose help value is no default (`comparable`: autosized, RESOLVED_AT_START) is "unknown", never
"differs". Defaults the server computes from its host at start (the help prints the lab host's
figure) are flagged `HOST_DEPENDENT`: their difference may be the hardware, not the configuration.
"""

import re
from dataclasses import dataclass, field

from upgradelab.captures.option_help import OptionHelp, parse_options

# The help's table: a dashed line, then `name<spaces>value` rows up to a blank line.
_TABLE_START = re.compile(r"^-{20,} -+$")
_VERSION_LINE = re.compile(r"^(\S+)\s+Ver\s+(\S+)", re.MULTILINE)
NO_DEFAULT = "(No default value)"
_BOOLEANS = {"TRUE": "ON", "FALSE": "OFF"}
# Variables whose value is a comma-separated set (order not significant).
_SETS = {
    "sql_mode",
    "optimizer_switch",
    "old_mode",
    "log_slow_filter",
    "log_disabled_statements",
    "log_slow_disabled_statements",
    "log_slow_verbosity",
    "session_track_system_variables",
    "tls_version",
    "optimizer_trace",
}
# The largest value of a 32- and a 64-bit unsigned type: each binary's "no limit" (max_seeks_for_key,
# max_write_lock_count are 4294967295 on MariaDB 10.11, 18446744073709551615 on MySQL 9.7)
_NO_LIMIT = {str(2**32 - 1), str(2**64 - 1)}

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


# Values the help prints before the server resolves them at start, so its table is no default for
# them (measured: MariaDB 10.11.19's help against its own server started without an option file):
# autosized from max_connections or the host (host_cache_size 279 -> 205, thread_cache_size,
# innodb_open_files 0, innodb_io_capacity_max 4294967295, innodb_buffer_pool_size_auto_min 0),
# read from the device (innodb_log_write_ahead_size 512 -> 4096, innodb_log_file_mmap), set by the
# engine's start (aria_checkpoint_interval 0 -> 30, aria_recover_options '' -> BACKUP,QUICK,
# optimizer_trace '' -> enabled=off, slave_parallel_mode conservative -> optimistic), generated
# (server_uid) or following another option (report_port: the port). Measured the same way on
# MySQL 9.7.4 and MariaDB 11.8.9 (issue 45): the flush method the file system takes
# (innodb_flush_method fsync -> O_DIRECT on 9.7), the log's buffering as the device allows
# (innodb_log_file_buffering FALSE -> ON on 10.11), innodb_adaptive_hash_index_cells (sized from the
# buffer pool: 16381 -> 34679 on 11.8), log_error_verbosity (1 -> 2 on 9.7). A help default of -1 is
# "autosized" (performance_schema_*_size) and is not compared either.
RESOLVED_AT_START = frozenset(
    {
        "innodb_flush_method",
        "innodb_log_file_buffering",
        "innodb_adaptive_hash_index_cells",
        "log_error_verbosity",
        "host_cache_size",
        "thread_cache_size",
        "innodb_open_files",
        "innodb_io_capacity_max",
        "innodb_buffer_pool_size_auto_min",
        "innodb_log_write_ahead_size",
        "innodb_log_file_mmap",
        "aria_checkpoint_interval",
        "aria_recover_options",
        "optimizer_trace",
        "slave_parallel_mode",
        "server_uid",
        "report_port",
    }
)
AUTOSIZED = "-1"
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
_FLAGS = {"optimizer_switch", "optimizer_trace"}  # key=value flags: a server lists flags its help does not


@dataclass(frozen=True)
class BinaryDefaults:
    """A binary's defaults: `server` ("mariadbd 10.11.19-MariaDB-0+deb12u1"), `version` (its
    `Ver` field), `values` {underscored name: value as printed, None for "(No default value)"} and
    `options` {underscored name: what its help says of it, captures/option_help.py}."""

    server: str
    version: str
    values: dict[str, str | None]
    options: dict[str, OptionHelp] = field(default_factory=dict)


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
    return BinaryDefaults(server, version, values, parse_options(text))


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


def comparable(name: str, default: str | None) -> bool:
    """Whether the help's `default` of `name` is one to compare with (not none, not autosized, not
    resolved at start: RESOLVED_AT_START)."""
    return default is not None and default != AUTOSIZED and name not in RESOLVED_AT_START


def same_value(name: str, value: str, default: str) -> bool:
    """Whether a SHOW GLOBAL VARIABLES value is the binary's default (see `normalized`): numbers by
    value (10.000000 is 10; an unsigned type's largest value, 32- or 64-bit, is the same "no limit"),
    a boolean word and 0/1 by truth (ON, TRUE and 1 are the same), optimizer_switch by the flags the
    default names."""
    if value.strip() in _NO_LIMIT and default.strip() in _NO_LIMIT:
        return True
    if _NUMBER.match(value.strip()) and _NUMBER.match(default.strip()):
        return float(value) == float(default)
    truths = [_truth(one) for one in (value, default)]
    if None not in truths and any(one.strip().upper() in _TRUTHS for one in (value, default)):
        return truths[0] == truths[1]
    if name in _FLAGS:
        flags = dict(part.split("=", 1) for part in value.lower().split(",") if "=" in part)
        wanted = dict(part.split("=", 1) for part in default.lower().split(",") if "=" in part)
        return all(flags.get(flag) == state for flag, state in wanted.items())
    return normalized(name, value) == normalized(name, default)


_TRUTHS = {"ON": True, "TRUE": True, "OFF": False, "FALSE": False}


def _truth(value: str) -> bool | None:
    text = value.strip().upper()
    return _TRUTHS.get(text, {"1": True, "0": False}.get(text))


def is_flag_list(name: str) -> bool:
    """Whether `name`'s value is a list of flags or members compared one by one (flag_changes)."""
    return name in _SETS


def flag_changes(name: str, old: str, new: str) -> tuple[list[tuple[str, str, str]], list[str], list[str]]:
    """How list variable `name` changed from `old` to `new`, one member at a time: ([(flag, old state,
    new state)] of the flags both name with another state, and of members of a plain set (sql_mode)
    one side has ("on") and the other not ("off")), [flags only `old` names], [flags only `new` names]).
    A key=value list (optimizer_switch) compares the flags both versions have: a flag only one of them
    knows is listed apart, no change of anyone's setting."""
    if name in _FLAGS:
        before = dict(part.split("=", 1) for part in old.lower().split(",") if "=" in part)
        after = dict(part.split("=", 1) for part in new.lower().split(",") if "=" in part)
        changed = [
            (flag, state, after[flag]) for flag, state in before.items() if after.get(flag, state) != state
        ]
        return changed, [f for f in before if f not in after], [f for f in after if f not in before]
    before_set = {part.strip().upper() for part in old.split(",") if part.strip()}
    after_set = {part.strip().upper() for part in new.split(",") if part.strip()}
    changed = [(m, "on", "off") for m in sorted(before_set - after_set)]
    changed += [(m, "off", "on") for m in sorted(after_set - before_set)]
    return changed, [], []


def series(version: str) -> str:
    """ "10.11" of "10.11.19-MariaDB-0+deb12u1", "9.7" of "9.7.0": the release series."""
    found = re.match(r"^(\d+)\.(\d+)", version.strip())
    return f"{found[1]}.{found[2]}" if found else ""
