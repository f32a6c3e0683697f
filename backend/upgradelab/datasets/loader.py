"""Loading a dump into a started server with the server's own command-line client, as DBAs do.

`mysql` / `mariadb` (Endpoint.client: in the server's chroot or container) reads the dump on stdin,
so DELIMITER, `/*!50705 ... */` version comments, triggers, routines, views and multi-MB extended
INSERTs behave exactly as with `mysql < dump.sql`. The client stops at the first error and prints
`ERROR 1064 (42000) at line 12: ...`: that line number (the dump's) and the server's message are
what LoadFailed carries.

The dump is the user's, so the client is held as tightly as it allows:
- it reads SQL only: --binary-mode (every client command off but DELIMITER and `\\C`), and
  --commands=OFF (MySQL 8.0.40+) or --sandbox (MariaDB 10.5.25+), `--loose-` for older clients;
  scan.py reads every block as the client would before the block is written to the client, and
  refuses any client command, naming its line: the rest of the dump is never sent. The client
  starts once the first block (1 MiB) has passed, so a dump refused there runs nothing at all;
- the dump is read once (dump.py DumpStream), within bounds: its decompressed size and ratio
  (settings dump_max_bytes, dump_max_ratio), and its longest statement and line (the target's
  max_allowed_packet, at most dump_max_statement_bytes), refused by the scan before the client
  holds one; a cancel (`cancelled`, polled every block and by a watch thread every
  CANCEL_POLL_S while the client is busy) kills the client and raises LoadCancelled;
- it runs as the server's own `mysql` user (in the chroot: `chroot --userspec`; in a container:
  `docker exec --user mysql`; on this host: setuid before exec), never as root, with an environment
  of PATH, HOME=/ and MYSQL_PWD only; it reads the dump on stdin, never from a file;
- load_dataset connects it as the dataset's load user (accounts.py), not as the lab's admin, and
  the dump's DEFINER clauses are rewritten to that user. The load user gets the databases the dump
  names as the scan finds them: each grant is made before the bytes of the statement naming the
  database are written (the client runs a statement only once it has read its delimiter, and the
  scan finds the name by then), so one read serves the scan, the grants and the feed.
The client process itself (its launch, the cancel watch, its errors) is load_client.py; its
names are importable from here too.
"""

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pymysql

from upgradelab.datasets.accounts import LOAD_USER, grant_load, load_account, routines_allowed
from upgradelab.datasets.dump import DumpBounds, DumpStream, DumpTooLarge, RowCounter, ScanClock
from upgradelab.datasets.load_client import (
    CANCEL_POLL_S,
    ClientLaunch,
    DumpClient,
    LoadCancelled,
    LoadFailed,
    client_kind,
    client_launch,
    failure_of,
)
from upgradelab.datasets.reserved import ReservedDatabase
from upgradelab.datasets.scan import DumpReader, DumpRefused
from upgradelab.settings import Settings, get_settings
from upgradelab.targets.provisioners.base import Endpoint, ServerConnection
from upgradelab.workloads.session import DatasetProgress
from upgradelab.workloads.sql import execute, scalar

_DATABASE = re.compile(r"^[A-Za-z0-9_]{1,64}$")


@dataclass(frozen=True)
class TableStats:
    """One loaded table: schema, name, rows (exact COUNT(*)), data + index bytes (information_schema)."""

    schema: str
    name: str
    rows: int
    bytes: int


@dataclass(frozen=True)
class LoadResult:
    """What a load fed (the dump's decompressed bytes, before DEFINERs were rewritten), counted (rows
    in INSERTs) and took (seconds)."""

    bytes_fed: int
    rows_seen: int
    elapsed_s: float


def dump_bounds(settings: Settings) -> DumpBounds:
    """The decompressed size and ratio bounds of the settings."""
    return DumpBounds(
        settings.dump_max_bytes,
        settings.dump_max_ratio,
        settings.dump_ratio_after_bytes,
        settings.dump_min_scan_mib_s,
        settings.dump_scan_window_s,
    )


def load_dump(
    endpoint: Endpoint,
    flavor: str,
    path: Path,
    database: str,
    report: Callable[[DatasetProgress], None] = lambda progress: None,
    *,
    prepare: Callable[[], Endpoint] | None = None,
    grant: Callable[[str], None] = lambda name: None,
    max_statement: int | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    settings: Settings | None = None,
) -> LoadResult:
    """Feed the dump at `path` to the server's client connected as endpoint.user, default database
    `database` (created first by the caller or by `prepare`; a dump with `USE` or `CREATE DATABASE`
    switches itself), reading it once: each decompressed block is scanned (scan.py) before it is
    written. prepare(): called once, just before the client starts (after the first block passed
    the scan), the endpoint to connect as; grant(name): each database the dump names, before the
    bytes of its statement are written. max_statement: the longest statement and line (bytes;
    default settings.dump_max_statement_bytes). cancelled(): polled; once true the client is killed
    within CANCEL_POLL_S and LoadCancelled raised. Progress: `bytes` = decompressed bytes fed,
    `rows_total` = the dump's decompressed size (DumpStream.total: known or estimated), `rows` =
    INSERT rows seen. Raises LoadFailed naming the dump's line and the server's message, what the
    scan refused or the bound passed; the client is gone when it returns."""
    if not endpoint.client:
        raise LoadFailed("this target gives no command-line client to load a dump with", line=None, code=None)
    if not _DATABASE.match(database):
        message = f"database: {database!r} is not a name of letters, digits and _"
        raise LoadFailed(message, line=None, code=None)
    settings = settings or get_settings()
    if max_statement is None:
        max_statement = settings.dump_max_statement_bytes
    limit = f"the target's max_allowed_packet, at most UPGRADELAB_DUMP_MAX_STATEMENT_BYTES={max_statement}"
    dump = DumpReader(client_kind(flavor), max_statement=max_statement, limit=limit)
    stream = DumpStream(path, dump_bounds(settings), drop_sandbox_line=flavor != "mariadb")
    client = DumpClient(
        lambda: client_launch(prepare() if prepare else endpoint, flavor, database), cancelled
    )
    started = time.monotonic()
    rows = RowCounter()
    clock = ScanClock(stream.bounds)
    granted, last = 0, 0.0
    sent = False  # everything written, or the client gone by itself: wait for it, never kill it

    def send(out: bytes, final: bool = False) -> None:
        nonlocal granted
        if not out and not final and client.process is None:
            return  # nothing scanned to the end yet: the client need not start
        if client.process is None:
            client.write(b"")
        names = list(dump.databases)
        for name in names[granted:]:  # before the statement naming it reaches the client
            grant(name)
        granted = len(names)
        rows.feed(out)
        client.write(out)

    try:
        for block in stream.blocks():
            if cancelled():
                raise LoadCancelled()
            send(clock.timed(dump.feed, block))
            now = time.monotonic()
            if now - last >= 1.0:
                last = now
                report(_progress(stream.fed, stream.total(), rows.rows, now - started))
        send(dump.finish(), final=True)
        sent = True
    except BrokenPipeError:
        sent = True  # the client stopped at an error (its stderr says which), or a cancel killed it
    except DumpRefused as refused:
        raise LoadFailed(f"the dump was not loaded: {refused}", line=refused.line, code=None) from None
    except DumpTooLarge as large:
        raise LoadFailed(f"the dump was not loaded: {large}", line=None, code=None) from None
    finally:
        stream.close()
        code = client.end(sent=sent)
    if cancelled():
        raise LoadCancelled()
    if code != 0:
        raise failure_of(b"".join(client.stderr).decode(errors="replace"), code)
    elapsed = time.monotonic() - started
    report(_progress(stream.fed, stream.fed, rows.rows, elapsed))
    return LoadResult(dump.bytes, rows.rows, elapsed)


def load_dataset(
    admin: ServerConnection,
    endpoint: Endpoint,
    flavor: str,
    path: Path,
    database: str,
    report: Callable[[DatasetProgress], None] = lambda progress: None,
    *,
    cancelled: Callable[[], bool] = lambda: False,
) -> tuple[LoadResult, list[str]]:
    """Load the dump at `path` as the dataset's load user (accounts.py), reading it once (load_dump):
    once its first block passed the scan, `database` is created by the admin and the load user
    made with privileges on it; each database the dump creates or uses is granted to it as the scan
    finds it (a system database is refused by the scan, naming its line); functions and triggers are
    allowed on a server with a binary log while it loads (routines_allowed). The longest statement
    is the server's max_allowed_packet (at most settings.dump_max_statement_bytes). `admin` is the
    lab user's connection, `endpoint` its endpoint (host, port, client). Returns the load and every
    database the dataset holds (`database` first, then the dump's own, in the order the dump names
    them). LoadFailed (LoadCancelled once `cancelled()`) as load_dump."""
    if not _DATABASE.match(database):
        raise LoadFailed(
            f"database: {database!r} is not a name of letters, digits and _", line=None, code=None
        )
    settings = get_settings()
    packet = int(scalar(admin, "SELECT @@GLOBAL.max_allowed_packet") or settings.dump_max_statement_bytes)
    databases = [database]

    def prepare() -> Endpoint:
        execute(admin, f"CREATE DATABASE IF NOT EXISTS `{database}`")
        try:
            password = load_account(admin, [database])
        except pymysql.MySQLError as error:
            message = f"the load user could not be made: {error.args[-1]}"
            raise LoadFailed(message, line=None, code=None) from None
        return replace(endpoint, user=LOAD_USER, password=password, database=None)

    def grant(name: str) -> None:
        if name in databases:
            return
        try:
            grant_load(admin, name)
        except ReservedDatabase as refused:
            raise LoadFailed(f"the dump was not loaded: {refused}", line=None, code=None) from None
        except pymysql.MySQLError as error:
            message = f"database `{name}` could not be granted: {error.args[-1]}"
            raise LoadFailed(message, line=None, code=None) from None
        databases.append(name)

    with routines_allowed(admin):
        longest = min(packet, settings.dump_max_statement_bytes)
        result = load_dump(
            endpoint, flavor, path, database, report, prepare=prepare, grant=grant,
            max_statement=longest, cancelled=cancelled, settings=settings,
        )  # fmt: skip
    return result, databases


def _progress(fed: int, total: int | None, rows: int, elapsed_s: float) -> DatasetProgress:
    """Progress in decompressed bytes: `fed` of `total` (None: not known, no estimate)."""
    estimate = elapsed_s * total / fed if fed and total else None
    return DatasetProgress("loading the dump", rows, max(total or fed, fed), fed, elapsed_s, estimate)


def table_stats(connection: ServerConnection, database: str) -> list[TableStats]:
    """Every base table of `database` with its exact row count and information_schema size."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT TABLE_NAME, COALESCE(DATA_LENGTH, 0) + COALESCE(INDEX_LENGTH, 0) "
            "FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_TYPE = 'BASE TABLE' "
            "ORDER BY TABLE_NAME",
            (database,),
        )
        tables = list(cursor.fetchall())
        stats = []
        for name, size in tables:
            cursor.execute(f"SELECT COUNT(*) FROM `{database}`.`{name.replace('`', '``')}`")
            row = cursor.fetchone()
            stats.append(TableStats(database, name, int(row[0]) if row else 0, int(size)))
    return stats


__all__ = [
    "CANCEL_POLL_S",
    "ClientLaunch",
    "LoadCancelled",
    "LoadFailed",
    "LoadResult",
    "TableStats",
    "client_kind",
    "client_launch",
    "dump_bounds",
    "load_dataset",
    "load_dump",
    "table_stats",
]
