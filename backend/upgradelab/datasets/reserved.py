"""The databases no account the lab makes for a dataset may ever hold a privilege on.

One rule, asked wherever a dataset's database name is taken or granted: the dump scan
(statements.py), the dataset's own name (service.py), the lab's record of a kept datadir
(measurement/dataset_records.py) and, last and whatever the others said, where grants are made
(accounts.py ensure_account). A name is refused when:

- it is not 1 to 64 ASCII letters, digits, `_`, `$` or `-`: no space (a CHAR column in the grant
  tables drops trailing spaces, so `mysql ` could land as `mysql`), no backtick, dot, backslash,
  `%`, `#` (MySQL's `#mysql50#` prefix names a directory as it is on disk) or any non-ASCII
  letter (a Cyrillic look-alike of `sys` is not `sys`, but it is refused all the same);
- it is, in any letter case, one of the server's own databases (`mysql`, `sys`,
  `performance_schema`, `information_schema`): with lower_case_table_names 1 or 2 (Windows,
  macOS, and what a DBA may set anywhere) `MySQL` is `mysql`;
- it is, in any letter case, the lab's own: `upgradelab...` (the dataset marker's database
  `upgradelab_meta`, workloads/datasets.py, and every template's, e.g. `upgradelab_insert_truncate`),
  `lab_...` (the workload user holds ALL on `lab\\_%`, targets/workload_user.py), and on a server the
  lab does not own the lab's database there (the `database` of an existing target: its run markers
  live in it).
"""

import re

SYSTEM_DATABASES = frozenset({"mysql", "sys", "performance_schema", "information_schema"})
# prefixes of the lab's own databases, lower case (see the module docstring)
LAB_PREFIXES = ("upgradelab", "lab_")
# ASCII only: str.isalnum() and \w would also take look-alike letters
_NAME = re.compile(r"[A-Za-z0-9_$-]{1,64}")


class ReservedDatabase(ValueError):
    """A database name refused by `refusal` (the message names it and why)."""


def refusal(name: str, lab_database: str | None = None) -> str | None:
    """Why no dataset account may hold a privilege on database `name`, or None when it may.
    `lab_database`: the lab's own database on the server (an existing target's), refused too."""
    if not _NAME.fullmatch(name):
        return f"database {name!r}: names here are ASCII letters, digits, _, $ and - (at most 64)"
    folded = name.lower()
    if folded in SYSTEM_DATABASES:
        return f"database `{name}` is the server's own: a dataset has privileges on its own databases only"
    if folded.startswith(LAB_PREFIXES) or (lab_database is not None and folded == lab_database.lower()):
        return f"database `{name}` is the lab's own: a dataset has privileges on its own databases only"
    return None


def check(name: str, lab_database: str | None = None) -> str:
    """`name` when a dataset account may hold privileges on it; ReservedDatabase otherwise."""
    reason = refusal(name, lab_database)
    if reason is not None:
        raise ReservedDatabase(reason)
    return name
