"""The accounts a dataset's SQL runs as: the dump's load user, and the replay's reader or writer.

Made from the lab's admin connection (it holds CREATE USER and GRANT OPTION), as
targets/workload_user.py makes the workload user: each gets a fresh random password every time it
is made (never stored), and privileges on the dataset's databases only (the databases the dump
creates or uses, found by datasets/scan.py, and the dataset's default one), never a global
privilege: no FILE, SUPER, PROCESS, CREATE USER, GRANT OPTION or any *_ADMIN.

- `upgradelab_load` loads the dump: what tables, views, routines, triggers and events need in those
  databases. The loader rewrites the dump's DEFINER clauses to it, so it stays as the definer of
  the dump's views, routines, triggers and events: after the load, its grants are cut to what the
  replay may do (definer_access), so a function the reader calls cannot write through its definer.
- `upgradelab_read`: SELECT, SHOW VIEW, EXECUTE: what a read-only replay runs as.
- `upgradelab_write`: also INSERT, UPDATE, DELETE, temporary tables and LOCK TABLES: a replay with
  allow_writes (disposable targets only).

Grants name each database with `_` and `%` escaped: `shop_1` must not also grant `shopX1`. Every
name is checked here, where the grant is made, whatever the scan, a marker or a record said:
never the server's own databases nor the lab's (datasets/reserved.py), in any form.

While a dump loads, no event runs (events_paused): an event it creates fires only once the load
ended, in its own database, as its definer.
"""

import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress

import pymysql

from upgradelab.datasets.reserved import check
from upgradelab.targets.own_password import require_current_password
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.workloads.sql import execute, scalar

LOAD_USER = "upgradelab_load"
READ_USER = "upgradelab_read"
WRITE_USER = "upgradelab_write"
# TCP from the worker (127.0.0.1), or from a container network's gateway (docker `publish`).
_HOSTS = ("127.0.0.1", "%")

LOAD_PRIVILEGES = (
    "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, REFERENCES, INDEX, ALTER, CREATE TEMPORARY TABLES, "
    "LOCK TABLES, EXECUTE, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, ALTER ROUTINE, EVENT, TRIGGER"
)
READ_PRIVILEGES = "SELECT, SHOW VIEW, EXECUTE"
WRITE_PRIVILEGES = f"{READ_PRIVILEGES}, INSERT, UPDATE, DELETE, CREATE TEMPORARY TABLES, LOCK TABLES"
# a trigger fires only when its definer holds TRIGGER on the table (MySQL)
DEFINER_WRITE_PRIVILEGES = f"{WRITE_PRIVILEGES}, TRIGGER"


def grant_name(database: str) -> str:
    """`database` as a GRANT names it: backticks, with the LIKE wildcards `_` and `%` escaped."""
    escaped = database.replace("\\", "\\\\").replace("_", "\\_").replace("%", "\\%").replace("`", "``")
    return f"`{escaped}`"


def ensure_account(admin: ServerConnection, user: str, privileges: str, databases: Iterable[str]) -> str:
    """Create (or re-key) `user` with exactly `privileges` on each of `databases` (all it held
    before is revoked); its new password. ReservedDatabase, before any statement, when one of
    `databases` is the server's or the lab's own (reserved.py; the lab's database on an existing
    server is the admin connection's default one). Raises pymysql errors as the server gives them."""
    lab_database = scalar(admin, "SELECT DATABASE()")
    names = [check(name, None if lab_database is None else str(lab_database)) for name in databases]
    password = secrets.token_hex(16)
    with admin.cursor() as cursor:
        for host in _HOSTS:
            account = f"'{user}'@'{host}'"
            escaped = account.replace("%", "%%")  # the host '%' in a statement with parameters
            cursor.execute(f"CREATE USER IF NOT EXISTS {escaped} IDENTIFIED BY %s", (password,))
            cursor.execute(f"ALTER USER {escaped} IDENTIFIED BY %s", (password,))
            require_current_password(admin, account)  # not its own to change (targets/own_password.py)
            cursor.execute(f"REVOKE ALL PRIVILEGES, GRANT OPTION FROM {account}")
            for database in names:
                cursor.execute(f"GRANT {privileges} ON {grant_name(database)}.* TO {account}")
    return password


def load_account(admin: ServerConnection, databases: Iterable[str]) -> str:
    """The load user, ready to load a dump into `databases`; its password."""
    return ensure_account(admin, LOAD_USER, LOAD_PRIVILEGES, databases)


def grant_load(admin: ServerConnection, database: str) -> None:
    """Give the load user (made by load_account) its privileges on one more database: one the dump
    names, granted while it loads, before the statement naming it reaches the client (loader.py).
    ReservedDatabase, before any statement, as ensure_account."""
    lab_database = scalar(admin, "SELECT DATABASE()")
    name = check(database, None if lab_database is None else str(lab_database))
    with admin.cursor() as cursor:
        for host in _HOSTS:
            cursor.execute(f"GRANT {LOAD_PRIVILEGES} ON {grant_name(name)}.* TO '{LOAD_USER}'@'{host}'")


def definer_access(admin: ServerConnection, databases: Iterable[str], *, writes: bool) -> None:
    """Cut the load user (the definer of the dump's objects) to what a replay may do: read, or with
    `writes` also write, in `databases`. Its password is changed and not kept: nobody logs in as it."""
    ensure_account(admin, LOAD_USER, DEFINER_WRITE_PRIVILEGES if writes else READ_PRIVILEGES, databases)


def replay_account(admin: ServerConnection, databases: Iterable[str], *, writes: bool) -> tuple[str, str]:
    """(user, password) a replay connects as: the reader, or with `writes` the writer."""
    if writes:
        return WRITE_USER, ensure_account(admin, WRITE_USER, WRITE_PRIVILEGES, databases)
    return READ_USER, ensure_account(admin, READ_USER, READ_PRIVILEGES, databases)


@contextmanager
def routines_allowed(admin: ServerConnection) -> Iterator[None]:
    """While inside, a user without SUPER may create functions and triggers on a server that writes
    a binary log (MySQL 8+ does by default: ERROR 1419 otherwise): log_bin_trust_function_creators
    is set to 1 from the admin connection, and set back to 0 after. A no-op without a binary log or
    when the server already trusts them (MariaDB's lab servers log no binlog)."""
    with admin.cursor() as cursor:
        cursor.execute("SELECT @@GLOBAL.log_bin, @@GLOBAL.log_bin_trust_function_creators")
        row = cursor.fetchone()
    if not row or not int(row[0]) or int(row[1]):
        yield
        return
    execute(admin, "SET GLOBAL log_bin_trust_function_creators = 1")
    try:
        yield
    finally:
        with suppress(pymysql.MySQLError):
            execute(admin, "SET GLOBAL log_bin_trust_function_creators = 0")


@contextmanager
def events_paused(admin: ServerConnection) -> Iterator[None]:
    """While inside, the server runs no event: event_scheduler is set OFF from the admin connection
    (the scheduler thread has stopped when SET returns), and back ON after. MySQL 8+ starts it ON;
    a no-op when it is OFF (MariaDB's default) or DISABLED (set at start-up: it cannot be turned on).
    Raises the server's error when it cannot be turned off: a load must not run with events on."""
    if str(scalar(admin, "SELECT @@GLOBAL.event_scheduler")).upper() != "ON":
        yield
        return
    execute(admin, "SET GLOBAL event_scheduler = OFF")
    try:
        yield
    finally:
        with suppress(pymysql.MySQLError):  # a cancel may have stopped the server meanwhile
            execute(admin, "SET GLOBAL event_scheduler = ON")
