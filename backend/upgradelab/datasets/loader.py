"""Loading a dump into a started server with the server's own command-line client, as DBAs do.

`mysql` / `mariadb` (Endpoint.client: in the server's chroot or container) reads the dump on stdin,
so DELIMITER, `/*!50705 ... */` version comments, triggers, routines, views and multi-MB extended
INSERTs behave exactly as with `mysql < dump.sql`. The client stops at the first error and prints
`ERROR 1064 (42000) at line 12: ...`: that line number (the dump's) and the server's message are
what LoadFailed carries.

The dump is the user's, so the client is held as tightly as it allows:
- it reads SQL only: --binary-mode (every client command off but DELIMITER and `\\C`), and
  --commands=OFF (MySQL 8.0.40+) or --sandbox (MariaDB 10.5.25+), `--loose-` for older clients;
  before that, scan.py reads the whole dump as the client would and refuses any client command,
  naming its line; the same reader runs again on the bytes as they are fed;
- it runs as the server's own `mysql` user (in the chroot: `chroot --userspec`; in a container:
  `docker exec --user mysql`; on this host: setuid before exec), never as root, with an environment
  of PATH, HOME=/ and MYSQL_PWD only; it reads the dump on stdin, never from a file;
- load_dataset connects it as the dataset's load user (accounts.py), not as the lab's admin, and
  the dump's DEFINER clauses are rewritten to that user.
"""

import os
import re
import subprocess
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path

import pymysql

from upgradelab.datasets.accounts import LOAD_USER, load_account, routines_allowed
from upgradelab.datasets.dump import RowCounter, chunks, open_dump
from upgradelab.datasets.scan import ClientKind, DumpReader, DumpRefused, DumpScan, scan_dump
from upgradelab.targets.provisioners.base import Endpoint, ServerConnection
from upgradelab.workloads.base import DatasetProgress, execute

# the server's errors (ERROR 1064 (42000) at line 12: ...) and the client's own (ERROR at line 3: ...)
_CLIENT_ERROR = re.compile(
    r"ERROR(?: (?P<code>\d+)(?: \((?P<state>\w+)\))?)?(?: at line (?P<line>\d+))?: (?P<msg>.*)"
)
_DATABASE = re.compile(r"^[A-Za-z0-9_]{1,64}$")
# client warnings that are no error (MariaDB 11's about TLS checks, MySQL's about passwords)
_NOISE = re.compile(r"^WARNING: |Using a password")
_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
# every client command off; `--loose-`: a client older than the switch warns and goes on
_SWITCHES = {
    "mysql": ["--binary-mode", "--loose-commands=OFF"],
    "mariadb": ["--binary-mode", "--loose-sandbox"],
}


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
    """What a load fed (the dump's decompressed bytes, before DEFINERs were rewritten), counted (rows
    in INSERTs) and took (seconds)."""

    bytes_fed: int
    rows_seen: int
    elapsed_s: float


@dataclass(frozen=True)
class ClientLaunch:
    """How the client is started: argv, environment, and the uid/gid to switch to before exec
    (None: the argv switches itself, or this process is not root)."""

    argv: list[str]
    env: dict[str, str]
    uid: int | None
    gid: int | None


def client_kind(flavor: str) -> ClientKind:
    """Which client reads the dump: MariaDB's for the mariadb flavor, MySQL's otherwise."""
    return "mariadb" if flavor == "mariadb" else "mysql"


def _mysql_ids(passwd: Path) -> tuple[int, int]:
    for line in passwd.read_text().splitlines():
        fields = line.split(":")
        if fields[0] == "mysql" and len(fields) > 3:
            return int(fields[2]), int(fields[3])
    raise LoadFailed(f"no 'mysql' user in {passwd}: the client must not run as root", line=None, code=None)


def client_launch(endpoint: Endpoint, flavor: str, database: str) -> ClientLaunch:
    """The client of `endpoint` (Endpoint.client) as the loader starts it: connected as
    endpoint.user, default database `database`, every client command off, as the `mysql` user of
    the chroot, container or host it runs in. LoadFailed when there is no `mysql` user to run as."""
    args = [f"--user={endpoint.user}" if arg.startswith("--user=") else arg for arg in endpoint.client]
    flags = [*_SWITCHES[client_kind(flavor)], "--default-character-set=utf8mb4", f"--database={database}"]
    env = {"PATH": _PATH, "HOME": "/", "MYSQL_PWD": endpoint.password}
    if args[0] == "chroot":  # chroot <root> <client> ...: the ids are the chroot's own
        uid, gid = _mysql_ids(Path(args[1]) / "etc/passwd")
        return ClientLaunch(["chroot", f"--userspec={uid}:{gid}", *args[1:], *flags], env, None, None)
    if args[0] == "docker":  # docker exec -i -e MYSQL_PWD <container> <client> ...
        at = args.index("exec") + 1
        docker_env = {k: v for k, v in os.environ.items() if k.startswith("DOCKER_")}
        env = {**env, **docker_env, "HOME": os.environ.get("HOME", "/")}  # the docker CLI's config
        return ClientLaunch([*args[:at], "--user", "mysql", *args[at:], *flags], env, None, None)
    if os.geteuid() != 0:
        return ClientLaunch([*args, *flags], env, None, None)
    uid, gid = _mysql_ids(Path("/etc/passwd"))
    return ClientLaunch([*args, *flags], env, uid, gid)


def scan_file(
    path: Path, flavor: str, report: Callable[[DatasetProgress], None] = lambda progress: None
) -> DumpScan:
    """Read the whole dump at `path` as the flavor's client would (scan.py), before anything runs.
    Progress phase "checking the dump" (bytes = file bytes read). LoadFailed naming the line of the
    first thing refused."""
    size = path.stat().st_size
    counted, stream, _ = open_dump(path)
    started = time.monotonic()
    last = [0.0]

    def progress(_: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 1.0:
            last[0] = now
            report(_progress("checking the dump", counted.consumed, size, 0, now - started))

    try:
        return scan_dump(chunks(stream, drop_sandbox_line=flavor != "mariadb"), client_kind(flavor), progress)
    except DumpRefused as refused:
        raise LoadFailed(f"the dump was not loaded: {refused}", line=refused.line, code=None) from None
    finally:
        stream.close()
        counted.raw.close()


def load_dump(
    endpoint: Endpoint,
    flavor: str,
    path: Path,
    database: str,
    report: Callable[[DatasetProgress], None] = lambda progress: None,
    *,
    scanned: DumpScan | None = None,
) -> LoadResult:
    """Feed the dump at `path` to the server's client connected as endpoint.user, default database
    `database` (created first by the caller; a dump with `USE` or `CREATE DATABASE` switches
    itself). The dump is scanned first unless `scanned` (scan_file of the same file) is given.
    Progress: `bytes` = file bytes consumed (compressed when the file is), `rows_total` = file size so
    the estimate follows the bytes, `rows` = INSERT rows seen. Raises LoadFailed naming the dump's
    line and the server's message (or what the scan refused); the client is gone when it returns."""
    if not endpoint.client:
        raise LoadFailed("this target gives no command-line client to load a dump with", line=None, code=None)
    if not _DATABASE.match(database):
        message = f"database: {database!r} is not a name of letters, digits and _"
        raise LoadFailed(message, line=None, code=None)
    if scanned is None:
        scan_file(path, flavor, report)  # LoadFailed before the client starts
    launch = client_launch(endpoint, flavor, database)
    size = path.stat().st_size
    counted, stream, _ = open_dump(path)
    process = subprocess.Popen(
        launch.argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=launch.env,
        user=launch.uid,
        group=launch.gid,
        extra_groups=[] if launch.uid is not None else None,
        cwd="/",
    )
    assert process.stdin is not None and process.stderr is not None
    stderr: list[bytes] = []
    reader = threading.Thread(target=lambda: stderr.append(process.stderr.read()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    started = time.monotonic()
    rows = RowCounter()
    dump = DumpReader(client_kind(flavor))  # the same reading again, on the bytes sent: DEFINERs rewritten
    last = 0.0
    sent = False  # everything written, or the client gone by itself: wait for it, never kill it
    try:
        for block in chunks(stream, drop_sandbox_line=flavor != "mariadb"):
            out = dump.feed(block)
            rows.feed(out)
            process.stdin.write(out)
            now = time.monotonic()
            if now - last >= 1.0:
                last = now
                report(_progress("loading the dump", counted.consumed, size, rows.rows, now - started))
        out = dump.finish()
        rows.feed(out)
        process.stdin.write(out)
        sent = True
        process.stdin.close()
    except BrokenPipeError:
        sent = True  # the client stopped at an error: its stderr says which
    except DumpRefused as refused:  # the file changed since the scan
        raise LoadFailed(f"the dump was not loaded: {refused}", line=refused.line, code=None) from None
    finally:
        stream.close()
        counted.raw.close()
        if not sent:  # refused or interrupted mid-way: the client must not go on with half a dump
            process.kill()
        with suppress(BrokenPipeError):
            process.stdin.close()
        code = process.wait()
        reader.join()
    if code != 0:
        raise _failure(b"".join(stderr).decode(errors="replace"), code)
    elapsed = time.monotonic() - started
    report(_progress("loading the dump", size, size, rows.rows, elapsed))
    return LoadResult(dump.bytes, rows.rows, elapsed)


def load_dataset(
    admin: ServerConnection,
    endpoint: Endpoint,
    flavor: str,
    path: Path,
    database: str,
    report: Callable[[DatasetProgress], None] = lambda progress: None,
) -> tuple[LoadResult, list[str]]:
    """Load the dump at `path` as the dataset's load user (accounts.py): scanned first (LoadFailed
    naming the line of a client command or a system database), `database` created by the admin,
    the load user made with privileges on `database` and the databases the dump creates or uses,
    functions and triggers allowed on a server with a binary log while it loads (routines_allowed),
    then the dump fed as that user. `admin` is the lab user's connection, `endpoint` its endpoint
    (host, port, client). Returns the load and every database the dataset holds (`database` first,
    then the dump's own, in the order the dump names them)."""
    scanned = scan_file(path, flavor, report)
    if not _DATABASE.match(database):
        raise LoadFailed(
            f"database: {database!r} is not a name of letters, digits and _", line=None, code=None
        )
    execute(admin, f"CREATE DATABASE IF NOT EXISTS `{database}`")
    databases = [database, *(name for name in scanned.databases if name != database)]
    try:
        password = load_account(admin, databases)
    except pymysql.MySQLError as error:
        raise LoadFailed(f"the load user could not be made: {error.args[-1]}", line=None, code=None) from None
    loader = replace(endpoint, user=LOAD_USER, password=password, database=None)
    with routines_allowed(admin):
        return load_dump(loader, flavor, path, database, report, scanned=scanned), databases


def _progress(phase: str, consumed: int, size: int, rows: int, elapsed_s: float) -> DatasetProgress:
    estimate = elapsed_s * size / consumed if consumed else None
    return DatasetProgress(phase, rows, size, consumed, elapsed_s, estimate)


def _failure(stderr: str, exit_code: int) -> LoadFailed:
    lines = [line for line in stderr.splitlines() if line.strip() and not _NOISE.search(line)]
    for line in lines:
        match = _CLIENT_ERROR.search(line)
        if match:
            where = f" at line {match['line']} of the dump" if match["line"] else ""
            what = f"ERROR {match['code']}" if match["code"] else "the client's error"
            return LoadFailed(
                f"the dump did not load{where}: {what}: {match['msg']}",
                line=int(match["line"]) if match["line"] else None,
                code=int(match["code"]) if match["code"] else None,
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
