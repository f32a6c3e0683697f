"""Loading a dump into a started server with the server's own command-line client, as DBAs do.

`mysql` / `mariadb` (Endpoint.client: in the server's chroot or container) reads the dump on stdin,
so DELIMITER, `/*!50705 ... */` version comments, triggers, routines, views and multi-MB extended
INSERTs behave exactly as with `mysql < dump.sql`. The client stops at the first error and prints
`ERROR 1064 (42000) at line 12: ...`: that line number (the dump's) and the server's message are
what LoadFailed carries.
"""

import re
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from upgradelab.datasets.dump import RowCounter, chunks, open_dump
from upgradelab.targets.provisioners.base import Endpoint, ServerConnection
from upgradelab.workloads.base import DatasetProgress

_CLIENT_ERROR = re.compile(
    r"ERROR (?P<code>\d+)(?: \((?P<state>\w+)\))?(?: at line (?P<line>\d+))?: (?P<msg>.*)"
)
_DATABASE = re.compile(r"^[A-Za-z0-9_]{1,64}$")


class LoadFailed(RuntimeError):
    """The client stopped: `line` of the dump (None when the client gave none), the server's `code`
    (None for a client-side error) and its message."""

    def __init__(self, message: str, *, line: int | None, code: int | None) -> None:
        super().__init__(message)
        self.line, self.code = line, code


@dataclass(frozen=True)
class TableStats:
    """One loaded table: schema, name, rows (exact COUNT(*)), data + index bytes (information_schema)."""

    schema: str
    name: str
    rows: int
    bytes: int


@dataclass(frozen=True)
class LoadResult:
    """What a load fed (decompressed bytes), counted (rows in INSERTs) and took (seconds)."""

    bytes_fed: int
    rows_seen: int
    elapsed_s: float


def load_dump(
    endpoint: Endpoint,
    flavor: str,
    path: Path,
    database: str,
    report: Callable[[DatasetProgress], None] = lambda progress: None,
) -> LoadResult:
    """Feed the dump at `path` to the server's client, default database `database` (created first by
    the caller; a dump with `USE` or `CREATE DATABASE` switches itself). Progress: `bytes` = file bytes
    consumed (compressed when the file is), `rows_total` = file size so the estimate follows the bytes,
    `rows` = INSERT rows seen. Raises LoadFailed naming the dump's line and the server's message."""
    if not endpoint.client:
        raise LoadFailed("this target gives no command-line client to load a dump with", line=None, code=None)
    if not _DATABASE.match(database):
        message = f"database: {database!r} is not a name of letters, digits and _"
        raise LoadFailed(message, line=None, code=None)
    size = path.stat().st_size
    counted, stream, _ = open_dump(path)
    process = subprocess.Popen(
        [*endpoint.client, f"--database={database}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=endpoint.client_env(),
    )
    assert process.stdin is not None and process.stderr is not None
    stderr: list[bytes] = []
    reader = threading.Thread(target=lambda: stderr.append(process.stderr.read()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    started = time.monotonic()
    rows = RowCounter()
    fed = 0
    last = 0.0
    try:
        for block in chunks(stream, drop_sandbox_line=flavor != "mariadb"):
            rows.feed(block)
            process.stdin.write(block)
            fed += len(block)
            now = time.monotonic()
            if now - last >= 1.0:
                last = now
                report(_progress(counted.consumed, size, rows.rows, now - started))
        process.stdin.close()
    except BrokenPipeError:
        pass  # the client stopped at an error: its stderr says which
    finally:
        stream.close()
        counted.raw.close()
    code = process.wait()
    reader.join()
    if code != 0:
        raise _failure(b"".join(stderr).decode(errors="replace"), code)
    elapsed = time.monotonic() - started
    report(_progress(size, size, rows.rows, elapsed))
    return LoadResult(fed, rows.rows, elapsed)


def _progress(consumed: int, size: int, rows: int, elapsed_s: float) -> DatasetProgress:
    estimate = elapsed_s * size / consumed if consumed else None
    return DatasetProgress("loading the dump", rows, size, consumed, elapsed_s, estimate)


def _failure(stderr: str, exit_code: int) -> LoadFailed:
    lines = [line for line in stderr.splitlines() if line.strip() and "Using a password" not in line]
    for line in lines:
        match = _CLIENT_ERROR.search(line)
        if match:
            where = f" at line {match['line']} of the dump" if match["line"] else ""
            return LoadFailed(
                f"the dump did not load{where}: ERROR {match['code']}: {match['msg']}",
                line=int(match["line"]) if match["line"] else None,
                code=int(match["code"]),
            )
    at_line = re.search(r"at line (\d+)", stderr)
    text = " / ".join(lines)[-2000:] or f"client exit status {exit_code}"
    return LoadFailed(f"the dump did not load: {text}", line=int(at_line[1]) if at_line else None, code=None)


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
