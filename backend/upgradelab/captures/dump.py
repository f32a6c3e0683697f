"""A capture's schema (and data up to a limit) as a dataset: dumped by the server's own dump client,
stored through the dataset upload's path.

The client is the lab's binary of the captured server's flavor and series (`mariadb-dump` /
`mysqldump` beside the `mariadb` / `mysql` client of that lab target, in its chroot), run by the
worker as the chroot's `mysql` user with a bare environment, `--no-defaults` (no option file on the
lab's host changes it) and the capture's own account (read-only: `--single-transaction`, no locks),
its password in MYSQL_PWD, never on a command line. A docker target's client runs in a throw-away
container of its image (captures/docker_dump.py: host network, its mysql user, the password in an
option file on its standard input, the container removed on a cancel or the timeout). Either is
bounded by DUMP_TIMEOUT_S and stopped on a cancel. Two passes into one file: every database's
schema (tables, views, routines, triggers, events), then the data of the tables that fit in
`--data-limit` MiB by information_schema.TABLES.DATA_LENGTH (whole tables, smallest first: a cut
table would load as half a table; those left out are listed). `--schema-only`: the first pass only.

Databases are data: a name is passed as one argument (no shell), and one the dataset's accounts may
never hold a privilege on (datasets/reserved.py: the server's, the lab's, an odd character) or one
starting with `-` (the client would read it as an option) is left out and listed. The file goes to
the API (PUT /api/captures/{id}/dataset with the worker credential) and is stored as an upload is
(datasets/service.py create_from_stream: size bound, sha256, the dataset record); loading it later
is a dataset load like any other (the scan, the client with its commands off, the load account).

One concept: one capture's dump, from the databases chosen to the file stored; the helpers below are its
steps (the client's command, the two passes, the upload), none used elsewhere.
"""

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from pydantic import BaseModel

from upgradelab.datasets.reserved import refusal
from upgradelab.pools.credential import worker_token
from upgradelab.settings import Settings
from upgradelab.targets.client_auth import plugin_dir_flag
from upgradelab.targets.provisioners.base import Endpoint, ProvisionError, ServerConnection, client_flags

DEFAULT_DATA_LIMIT_MB = 100  # neither --schema-only nor --data-limit: data up to 100 MiB
_MIB = 1024 * 1024
# the dump's text runs larger than DATA_LENGTH (escaped values, INSERT syntax): it is cut at this
# multiple of the limit (plus the schema's room), so a wrong estimate cannot fill the disk
TEXT_FACTOR = 4
SCHEMA_ROOM = 256 * _MIB
POLL_S = 0.2
# a dump client has no read timeout: a captured server that stops answering mid-dump would hold the
# capture (and its target's lock) for ever. 30 min: a 100 MiB data limit (the default) dumps in
# seconds on the lab's 2-core machine; a team's larger --data-limit may take minutes
DUMP_TIMEOUT_S = 1800.0
_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
_TIMEOUT = httpx.Timeout(30.0, read=600.0)
# a read-only account's dump: one snapshot, no locks, no tablespaces (those need PROCESS)
_ENOUGH = [
    "--single-transaction",
    "--skip-lock-tables",
    "--no-tablespaces",
    "--hex-blob",
    "--default-character-set=utf8mb4",
]
# mysqldump only: with GTIDs on (MySQL 9.7's lab server has them) its default --set-gtid-purged=AUTO
# takes FLUSH TABLES WITH READ LOCK around the snapshot, which needs RELOAD or FLUSH_TABLES: a
# read-only account's dump stopped there (measured: ERROR 1227 on 'FLUSH LOCAL TABLES'). A capture
# wants the schema and rows, never the source's GTID set.
_MYSQLDUMP = ["--set-gtid-purged=OFF"]


class LeftOut(BaseModel):
    """A database or table the dump does not hold (`name`), and why."""

    name: str
    reason: str


class DumpRecord(BaseModel):
    """What the capture's dump holds: the `client` that wrote it ("mariadb-dump of mariadb-10.11"),
    the `databases`, those `left_out`, the tables whose rows it holds (`tables_with_data`) and those
    whose rows did not fit (`data_left_out`), `data_limit_mb` (None: schema only), its `bytes`
    (`schema_bytes` of them the first pass's: the schema, which a check loads; None on a capture made
    before), the `dataset` it was stored as, or the `error` (the client's or the API's words) when
    none was."""

    client: str | None = None
    databases: list[str] = []
    left_out: list[LeftOut] = []
    tables_with_data: int = 0
    data_left_out: list[LeftOut] = []
    data_limit_mb: int | None = None
    bytes: int = 0
    schema_bytes: int | None = None
    dataset: str | None = None
    error: str | None = None


class DumpFailed(RuntimeError):
    """The dump client stopped (its words), the dump passed its cap, or the API refused the file."""


@dataclass(frozen=True)
class DumpClient:
    """How the dump client runs: `argv` the command before the client's own options, `name` what the
    DumpRecord calls it, `defaults` its first option (`--no-defaults`, or `--defaults-file=/dev/stdin`
    when `stdin` makes the option file holding the password; None `stdin`: the password in MYSQL_PWD),
    `env` added to its bare environment, `remove` what stops what the argv started outside the
    client's process (a container), called after the process was killed."""

    argv: list[str]
    name: str
    defaults: str = "--no-defaults"
    stdin: Callable[[str], bytes] | None = None
    env: dict[str, str] = field(default_factory=dict)
    remove: Callable[[], None] | None = None


def databases_to_dump(
    connection: ServerConnection, lab_database: str | None
) -> tuple[list[str], list[LeftOut]]:
    """(the databases to dump, those left out with the reason): every database but the server's
    and the lab's own (datasets/reserved.py) and a name the client would read as an option."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY SCHEMA_NAME")
        names = [_text(name) for (name,) in cursor.fetchall()]
    kept: list[str] = []
    left: list[LeftOut] = []
    for name in names:
        reason = refusal(name, lab_database)
        if reason is None and name.startswith("-"):
            reason = f"database {name!r} starts with '-': the dump client would read it as an option"
        if reason is None:
            kept.append(name)
        elif name.lower() not in {"mysql", "sys", "performance_schema", "information_schema"}:
            left.append(LeftOut(name=name, reason=reason))
    return kept, left


def data_tables(
    connection: ServerConnection, databases: list[str], limit_mb: int
) -> tuple[int, list[LeftOut]]:
    """(how many base tables' rows fit, the tables whose rows do not): whole tables by DATA_LENGTH,
    smallest first, until `limit_mb` MiB."""
    if not databases:
        return 0, []
    marks = ", ".join(["%s"] * len(databases))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT TABLE_SCHEMA, TABLE_NAME, COALESCE(DATA_LENGTH, 0) FROM information_schema.TABLES "
            f"WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA IN ({marks}) "
            "ORDER BY 3, TABLE_SCHEMA, TABLE_NAME",
            databases,
        )
        rows = [(_text(s), _text(t), int(n)) for s, t, n in cursor.fetchall()]
    room, fit, left = limit_mb * _MIB, 0, []
    for schema, table, size in rows:
        if size <= room:
            room -= size
            fit += 1
        else:
            reason = f"{size / _MIB:.1f} MiB of data (DATA_LENGTH) past the {limit_mb} MiB limit"
            left.append(LeftOut(name=f"{schema}.{table}", reason=reason))
    return fit, left


def _mysql_ids(passwd: Path) -> tuple[int, int]:
    for line in passwd.read_text().splitlines():
        fields = line.split(":")
        if fields[0] == "mysql" and len(fields) > 3:
            return int(fields[2]), int(fields[3])
    raise DumpFailed(f"no 'mysql' user in {passwd}: the dump client must not run as root")


def dump_command(lab_client: tuple[str, ...], flavor: str) -> list[str]:
    """The dump client's argv prefix beside the lab target's client (`lab_client`, its
    Endpoint.client): as the `mysql` user of its chroot (chroot --userspec) or of the host (setpriv,
    no supplementary groups) when the worker runs as root, as the loader's client runs. DumpFailed for
    a docker target's client (an exec into its server container: a docker target's dump client runs
    in a container of its own, captures/docker_dump.py) or none."""
    if not lab_client or lab_client[0] == "docker":
        raise DumpFailed("the lab's binary of this version is not a local or tarball one: no dump client")
    name = "mariadb-dump" if flavor == "mariadb" else "mysqldump"
    if lab_client[0] == "chroot":
        root, client = lab_client[1], lab_client[2]
        path = f"{os.path.dirname(client)}/{name}"
        if os.geteuid() != 0:
            return ["chroot", root, path]
        uid, gid = _mysql_ids(Path(root) / "etc/passwd")
        return ["chroot", f"--userspec={uid}:{gid}", root, path]
    path = f"{os.path.dirname(lab_client[0])}/{name}"
    if os.geteuid() != 0:
        return [path]
    uid, gid = _mysql_ids(Path("/etc/passwd"))
    return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", path]


def local_client(lab_client: tuple[str, ...], flavor: str) -> DumpClient:
    """The dump client beside a local or tarball lab target's client (dump_command)."""
    command = dump_command(lab_client, flavor)
    return DumpClient(argv=command, name=os.path.basename(command[-1]))


def _run(
    client: DumpClient,
    options: list[str],
    password: str,
    out: Path,
    cap: int,
    cancelled: Callable[[], bool],
    deadline: tuple[float, float],
) -> None:
    """One client run appending to `out`; DumpFailed with its words, past `cap` bytes, past the
    `deadline` (time.monotonic(), and the timeout it ends), or cancelled; then the client is killed
    and `client.remove` run."""
    env = {"PATH": _PATH, "HOME": "/", **client.env}
    secret = client.stdin(password) if client.stdin is not None else None
    if secret is None:
        env["MYSQL_PWD"] = password
    argv = [*client.argv, client.defaults, *options]
    stdin = subprocess.PIPE if secret is not None else subprocess.DEVNULL
    with out.open("ab") as sink:
        process = subprocess.Popen(argv, stdin=stdin, stdout=sink, stderr=subprocess.PIPE, env=env, cwd="/")
        killed = False
        try:
            if secret is not None and process.stdin is not None:
                pipe, process.stdin = process.stdin, None  # communicate() below has none to flush
                try:  # a few bytes: the pipe takes them at once; closed so the client reads to its end
                    pipe.write(secret)
                    pipe.close()
                except BrokenPipeError:
                    pass  # the client ended first: its exit status and words say why
            while process.poll() is None:
                time.sleep(POLL_S)
                if cancelled():
                    raise DumpFailed("cancelled")
                if out.stat().st_size > cap:
                    raise DumpFailed(f"the dump passed {cap // _MIB} MiB (the data limit's cap): stopped")
                if time.monotonic() > deadline[0]:
                    raise DumpFailed(f"the dump ran past its {deadline[1]:g} s timeout: stopped")
        finally:
            if process.poll() is None:
                process.kill()
                killed = True
            stderr = process.communicate()[1].decode("utf-8", "replace")
            if killed and client.remove is not None:
                client.remove()
    if process.returncode != 0:
        words = " / ".join(line for line in stderr.splitlines() if line.strip())[-2000:]
        raise DumpFailed(f"the dump client ended with exit status {process.returncode}: {words}")


def write_dump(
    client: DumpClient,
    endpoint: Endpoint,
    out: Path,
    databases: list[str],
    data_left_out: list[LeftOut] | None,
    cancelled: Callable[[], bool],
    limit_mb: int | None,
    timeout_s: float = DUMP_TIMEOUT_S,
) -> int:
    """Dump `databases` from `endpoint` into `out` (module docstring): the schema, then unless
    `data_left_out` is None (schema only) the rows of every table but those; both passes within
    `timeout_s` seconds. The bytes of the schema (the first pass). DumpFailed."""
    # client_flags' first, --no-defaults, is the client's own choice (DumpClient.defaults); only the
    # target's allowed authentication plugins can load (targets/client_auth.py)
    connect = client_flags(endpoint.host, endpoint.port, endpoint.user, connect_timeout=False)[1:]
    connect.append(plugin_dir_flag(client.argv, endpoint.auth))
    cap = SCHEMA_ROOM + TEXT_FACTOR * (limit_mb or 0) * _MIB
    deadline = (time.monotonic() + timeout_s, timeout_s)
    out.unlink(missing_ok=True)
    enough = [*_ENOUGH, *(_MYSQLDUMP if client.name.startswith("mysqldump") else [])]
    schema = [*connect, *enough, "--no-data", "--routines", "--events", "--triggers"]
    _run(client, [*schema, "--databases", *databases], endpoint.password, out, cap, cancelled, deadline)
    schema_bytes = out.stat().st_size
    if data_left_out is None:
        return schema_bytes
    ignored = [f"--ignore-table={table.name}" for table in data_left_out]
    rows = [*connect, *enough, "--no-create-info", "--no-create-db", "--skip-triggers", *ignored]
    _run(client, [*rows, "--databases", *databases], endpoint.password, out, cap, cancelled, deadline)
    return schema_bytes


def upload(path: Path, capture_id: int, settings: Settings) -> tuple[int, str]:
    """(dataset id, name) of the dump stored through the API (PUT /api/captures/{id}/dataset, the
    upload's path); DumpFailed with the API's words when it refuses."""

    def blocks() -> Iterator[bytes]:
        with path.open("rb") as dump:
            while block := dump.read(_MIB):
                yield block

    url = f"{settings.api_base_url}/api/captures/{capture_id}/dataset"
    headers = {
        "Authorization": f"Bearer {worker_token(settings)}",
        "content-type": "application/octet-stream",
    }
    try:
        response = httpx.put(url, content=blocks(), headers=headers, timeout=_TIMEOUT)
    except httpx.HTTPError as error:
        raise DumpFailed(f"PUT {url}: {error}") from error
    if response.status_code != 201:
        raise DumpFailed(f"PUT {url}: {response.status_code} {response.text[:500]}")
    body = response.json()
    return int(body["id"]), str(body["name"])


def _text(value: object) -> str:
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace")
    return "" if value is None else str(value)


def take(
    connection: ServerConnection,
    endpoint: Endpoint,
    make_client: Callable[[], DumpClient] | None,
    flavor: str,
    *,
    capture_id: int,
    schema_only: bool,
    limit_mb: int | None,
    settings: Settings,
    cancelled: Callable[[], bool],
) -> tuple[DumpRecord, int | None]:
    """The capture's dump made and stored (module docstring) by the client `make_client` gives (None:
    the lab has no binary of that version): its DumpRecord and the dataset's id (None, with the
    record's `error`, when the lab has no client of that version, the client, its image or the API
    refused; the capture itself goes on)."""
    limit = None if schema_only else (limit_mb or DEFAULT_DATA_LIMIT_MB)
    record = DumpRecord(data_limit_mb=limit)
    out = settings.state_dir / "capture-dumps" / f"capture-{capture_id}.sql"
    try:
        if make_client is None:
            raise DumpFailed(f"the lab has no {flavor} binary of this version: no dump client to run")
        client = make_client()
        record.client = client.name
        record.databases, record.left_out = databases_to_dump(connection, endpoint.database)
        if not record.databases:
            raise DumpFailed("no database of the team's to dump (only the server's and the lab's own)")
        left: list[LeftOut] | None = None
        if limit is not None:
            record.tables_with_data, left = data_tables(connection, record.databases, limit)
            record.data_left_out = left
        out.parent.mkdir(parents=True, exist_ok=True)
        record.schema_bytes = write_dump(client, endpoint, out, record.databases, left, cancelled, limit)
        record.bytes = out.stat().st_size
        dataset_id, record.dataset = upload(out, capture_id, settings)
        return record, dataset_id
    except (DumpFailed, OSError, ProvisionError) as error:
        record.error = str(error)
        return record, None
    finally:
        out.unlink(missing_ok=True)
