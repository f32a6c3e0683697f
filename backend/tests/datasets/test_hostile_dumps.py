"""Hostile dumps on MariaDB 10.11, MariaDB 11.8 and MySQL 9.7, loaded as the engine loads them
(loader.load_dataset: scanned, then fed as the dataset's load user through a client with its
commands off, as the `mysql` user). Client commands are refused with their line before anything
runs; privileged SQL fails with the server's own error and the dump's line; nothing is left behind:
no marker file on the host or in a chroot, no new account, no client process. A sample-like dump
with its own schema, DEFINER=root@localhost objects and DELIMITER routines loads on all three."""

import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from tests import ports
from tests.conftest import STATE, lab_provisioner
from tests.datasets.hostile import SAMPLE, accounts, clients_left, marker_name, markers_found
from upgradelab.datasets.accounts import LOAD_USER
from upgradelab.datasets.loader import LoadFailed, client_launch, load_dataset
from upgradelab.measurement.dataset_load import DumpDataset, ensure_dataset, file_sha256
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.provisioners.base import Endpoint, ServerConnection
from upgradelab.workloads.base import execute, scalar

SERVERS = ["mariadb-10.11", "mariadb-11.8", "mysql-9.7"]
LOAD_ACCOUNTS = {(LOAD_USER, "127.0.0.1"), (LOAD_USER, "%")}
# access denied: to a database, for a user, a command on a table, a privilege needed
PRIVILEGE_ERRORS = {1044, 1045, 1142, 1227}


@dataclass
class Server:
    provisioner: LocalProvisioner
    endpoint: Endpoint
    admin: ServerConnection

    @property
    def flavor(self) -> str:
        return self.provisioner.flavor


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest, database: None) -> Iterator[Server]:
    provisioner = lab_provisioner(request.param, ports.UNIT_TARGETS[request.param])
    endpoint = provisioner.start([])
    admin = endpoint.connect()
    yield Server(provisioner, endpoint, admin)
    admin.close()
    provisioner.stop()


def _dump(text: str) -> Path:
    path = STATE / f"hostile-{marker_name()}.sql"
    path.write_text(text)
    return path


def _load(server: Server, text: str, database: str) -> LoadFailed:
    with pytest.raises(LoadFailed) as failed:
        load_dataset(server.admin, server.endpoint, server.flavor, _dump(text), database)
    return failed.value


# (dump with {m} for a marker path, line, what the refusal names)
CLIENT_COMMANDS = [
    ("SELECT 1;\n\\! touch {m}\n", 2, "client command `\\!` (system)"),
    ("SELECT 1;\n\\! id > {m}\n", 2, "client command `\\!` (system)"),
    ("SELECT 1;\nsystem touch {m}\n", 2, "client command `system`"),
    ("SELECT 1; system touch {m};\n", 1, "client command `system`"),
    ("/*!50001 SELECT 1 */;\n/*!50001 SELECT 2 \\! touch {m} */;\n", 2, "client command `\\!` (system)"),
    ("SELECT 1;\n\\. /etc/passwd\n", 2, "client command `\\.` (source)"),
    ("SELECT 1;\nsource /etc/passwd\n", 2, "client command `source`"),
    ("tee {m}\nSELECT 1;\n", 1, "client command `tee`"),
    ("SELECT 1 \\T {m}\n;\n", 1, "client command `\\T` (tee)"),
    ("pager touch {m}\nSELECT 1;\n", 1, "client command `pager`"),
    ("SELECT 1;\n\\P touch {m}\nSELECT 2;\n", 2, "client command `\\P` (pager)"),
    ("connect mysql 127.0.0.1\n", 1, "client command `connect`"),
    ("SELECT 1;\n\\r mysql 127.0.0.1\n", 2, "client command `\\r` (connect)"),
    ("SELECT 1;\nedit\n", 2, "client command `edit`"),
]


@pytest.mark.parametrize(("text", "line", "named"), CLIENT_COMMANDS)
def test_a_client_command_is_refused_with_its_line_before_anything_runs(
    server: Server, text: str, line: int, named: str
) -> None:
    marker = marker_name()
    before = accounts(server.admin)
    failed = _load(server, text.replace("{m}", f"/tmp/{marker}"), "hostile_cmd")
    assert failed.line == line and failed.code is None
    assert f"at line {line} of the dump: {named}" in str(failed), str(failed)
    assert markers_found(marker) == []
    assert accounts(server.admin) == before  # refused before the load user was made
    assert clients_left(server.provisioner.port) == []


# the commands that reach the host or a file, fed straight to the client as the loader starts it
# (no scan): its own switches (--binary-mode, --commands=OFF / --sandbox) leave them inert
UNSCANNED = [
    "SELECT 1;\n\\! touch {m}\nSELECT 2;\n",
    "SELECT 1;\nsystem touch {m}\nSELECT 2;\n",
    "SELECT 1; system touch {m};\n",
    "tee {m}\nSELECT 1;\n",
    "SELECT 1;\n\\T {m}\nSELECT 2;\n",
    "pager touch {m}\nSELECT 1;\n",
    "source /etc/passwd\nSELECT 1;\n",
    "SELECT 1;\n\\. /etc/passwd\n",
]


@pytest.mark.parametrize("text", UNSCANNED)
def test_without_the_scan_the_clients_own_switches_keep_commands_inert(server: Server, text: str) -> None:
    marker = marker_name()
    execute(server.admin, "CREATE DATABASE IF NOT EXISTS hostile_raw")
    launch = client_launch(server.endpoint, server.flavor, "hostile_raw")
    ran = subprocess.run(
        launch.argv,
        input=text.replace("{m}", f"/tmp/{marker}").encode(),
        capture_output=True,
        env=launch.env,
        user=launch.uid,
        group=launch.gid,
        extra_groups=[] if launch.uid is not None else None,
        timeout=60,
        check=False,
    )
    assert ran.returncode != 0, ran.stderr  # the command is an error (unknown, or SQL the server refuses)
    assert markers_found(marker) == []


def test_a_dump_that_hides_a_command_from_the_scan_still_runs_nothing(server: Server) -> None:
    # The scan reads strings with backslash escapes (the default sql_mode); after this SET the
    # client does not, so it sees `\\!` outside a string where the scan saw it inside one.
    marker = marker_name()
    text = f"SET sql_mode = 'NO_BACKSLASH_ESCAPES';\nSELECT 'a\\';\n\\! touch /tmp/{marker}\nSELECT 'b';\n"
    failed = _load(server, text, "hostile_evade")
    print(server.provisioner.target_name, failed)
    assert "client command" not in str(failed)  # not the scan: the client refused it
    assert failed.line == 3 and failed.code is None, str(failed)
    assert "at line 3 of the dump: the client's error: Unknown command '\\!'" in str(failed)
    assert markers_found(marker) == []
    assert clients_left(server.provisioner.port) == []


# (dump with {m} a marker name and {files} the server's secure-file-priv directory, its line)
PRIVILEGED = [
    ("CREATE TABLE IF NOT EXISTS t (a INT);\nCREATE USER 'evil'@'%' IDENTIFIED BY 'x';\n", 2),
    ("GRANT ALL PRIVILEGES ON *.* TO 'upgradelab_load'@'%' WITH GRANT OPTION;\n", 1),
    ("GRANT SELECT ON mysql.* TO 'upgradelab_load'@'127.0.0.1';\n", 1),
    ("SET GLOBAL general_log_file = '/tmp/{m}';\nSET GLOBAL general_log = ON;\n", 1),
    ("SET GLOBAL log_bin_trust_function_creators = 1;\n", 1),
    ("INSTALL PLUGIN example SONAME 'ha_example.so';\n", 1),
    ("CREATE TABLE IF NOT EXISTS t (a INT);\nSELECT 1 /*!50000 INTO OUTFILE '{files}/{m}' */;\n", 2),
    ("CREATE TABLE IF NOT EXISTS t (a INT);\nSELECT * FROM t INTO OUTFILE '{files}/{m}';\n", 2),
    ("INSERT INTO mysql.db (Host, Db, User) VALUES ('%', '%', 'evil');\n", 1),
    # a database the scan cannot see (dynamic SQL) has no grant
    ("SET @s = 'CREATE DATABASE hostile_other';\nPREPARE s FROM @s;\nEXECUTE s;\n", 3),
    # a DEFINER the loader does not rewrite (a comment before `=`) needs SET_USER_ID / SUPER
    ("CREATE DEFINER/**/=`root`@`localhost` PROCEDURE p() SELECT 1;\n", 1),
]


@pytest.mark.parametrize(("text", "line"), PRIVILEGED)
def test_privileged_sql_fails_with_the_servers_error_and_the_dump_line(
    server: Server, text: str, line: int
) -> None:
    marker = marker_name()
    files = str(scalar(server.admin, "SELECT @@secure_file_priv")).rstrip("/")
    log_file = scalar(server.admin, "SELECT @@general_log_file")
    before = accounts(server.admin)
    failed = _load(server, text.replace("{m}", marker).replace("{files}", files), "hostile_priv")
    print(server.provisioner.target_name, failed)
    assert failed.line == line and failed.code in PRIVILEGE_ERRORS, str(failed)
    assert f"at line {line} of the dump: ERROR {failed.code}: " in str(failed)
    assert accounts(server.admin) - before <= LOAD_ACCOUNTS  # only the load user, made by the lab
    assert scalar(server.admin, "SELECT @@general_log_file") == log_file
    assert scalar(server.admin, "SELECT @@log_bin_trust_function_creators") == 0
    host_files = server.provisioner.root / files.lstrip("/")
    assert markers_found(marker) == [] and not (host_files / marker).exists()
    assert clients_left(server.provisioner.port) == []
    with server.admin.cursor() as cursor:
        cursor.execute(f"SHOW GRANTS FOR '{LOAD_USER}'@'%'")
        grants = [str(row[0]) for row in cursor.fetchall()]
    assert grants[0].startswith("GRANT USAGE ON *.* TO"), grants  # nothing global
    assert all("`hostile\\_priv`.*" in g for g in grants[1:]), grants


def test_data_directory_creates_no_file_outside_the_datadir(server: Server) -> None:
    if scalar(server.admin, "SELECT @@have_symlink") == "YES":
        pytest.skip("this server starts with symbolic links on (the lab servers' options turn them off)")
    directory = server.provisioner.root / "tmp" / marker_name()
    directory.mkdir(mode=0o777)
    directory.chmod(0o777)
    inner = "/" + str(directory.relative_to(server.provisioner.root))
    text = (
        f"CREATE TABLE m (a INT) ENGINE=MyISAM DATA DIRECTORY='{inner}' INDEX DIRECTORY='{inner}';\n"
        f"CREATE TABLE i (a INT) ENGINE=InnoDB DATA DIRECTORY='{inner}';\n"
    )
    try:
        load_dataset(server.admin, server.endpoint, server.flavor, _dump(text), "hostile_datadir")
    except LoadFailed as failed:
        assert failed.line is not None, str(failed)
    assert list(directory.iterdir()) == []
    directory.rmdir()


def test_the_client_runs_as_the_mysql_user_with_a_bare_environment(server: Server) -> None:
    """Seen from outside while it loads: the client process's uid and environment."""
    seen: list[tuple[int, dict[str, str]]] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set() and not seen:
            for process in clients_left(server.provisioner.port, started=True):
                try:
                    seen.append((process.uids().real, process.environ()))
                except psutil.Error:
                    continue
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        load_dataset(server.admin, server.endpoint, server.flavor, _dump("SELECT SLEEP(3);\n"), "hostile_uid")
    finally:
        done.set()
        watcher.join()
    assert seen, "no client process seen while loading"
    uid, environment = seen[0]
    root = server.provisioner.root
    mysql_uid = next(
        int(line.split(":")[2])
        for line in (root / "etc/passwd").read_text().splitlines()
        if line.startswith("mysql:")
    )
    assert uid == mysql_uid != 0
    assert set(environment) <= {"PATH", "HOME", "MYSQL_PWD"}, environment
    assert clients_left(server.provisioner.port) == []


def _definers(admin: ServerConnection, schema: str) -> set[str]:
    found = set()
    for table, column in [
        ("VIEWS", "TABLE_SCHEMA"),
        ("ROUTINES", "ROUTINE_SCHEMA"),
        ("TRIGGERS", "TRIGGER_SCHEMA"),
        ("EVENTS", "EVENT_SCHEMA"),
    ]:
        with admin.cursor() as cursor:
            cursor.execute(f"SELECT DEFINER FROM information_schema.{table} WHERE {column} = %s", (schema,))
            found |= {str(row[0]) for row in cursor.fetchall()}
    return found


def test_a_sample_like_dump_with_its_own_schema_and_definers_loads(server: Server) -> None:
    path = _dump(SAMPLE)
    dataset = DumpDataset(path, file_sha256(path), "sample_ds")
    loaded = ensure_dataset(server.provisioner, [], dataset)
    try:
        admin = loaded.admin
        assert loaded.load is not None and loaded.databases == ["sample_ds", "sample_own"]
        # every definer is the load user (root@localhost was rewritten), on its 127.0.0.1 account
        assert _definers(admin, "sample_own") == {f"{LOAD_USER}@127.0.0.1"}
        assert (
            scalar(
                admin, "SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'sample_own'"
            )
            == 3
        )
        assert (
            scalar(admin, "SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'sample_own'")
            == 1
        )
        assert scalar(admin, "SELECT sample_own.film_count(49)") == 2
        assert scalar(admin, "SELECT COUNT(*) FROM sample_own.film_list") == 3
        assert scalar(admin, "SELECT title FROM sample_own.film WHERE id = 2") == "ACE \\! GOLDFINGER"
        execute(admin, "CALL sample_own.add_payment(2.50)")
        assert scalar(admin, "SELECT note FROM sample_own.payment") == "paid 2.50"  # the trigger ran
        assert scalar(admin, "SELECT @@log_bin_trust_function_creators") == 0  # set back after the load
        loaded.admin.close()
        again = ensure_dataset(server.provisioner, [], dataset)  # the kept datadir is reused
        assert again.load is None and again.databases == loaded.databases
        again.admin.close()
    finally:
        server.admin = server.provisioner.start([]).connect()  # the module's server, fresh again
