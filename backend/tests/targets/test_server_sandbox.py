"""Every lab server keeps its files in its own datadir and reads none of its clients' files: started
with symbolic links off and local-infile off (provisioners/base.py SANDBOX_OPTIONS), DATA DIRECTORY /
INDEX DIRECTORY aimed outside create nothing there, whether the server refuses the statement or
ignores the clause with a warning, for the workload user and for the lab's admin account alike, and
LOAD DATA LOCAL INFILE is refused. On MySQL 9.7, MariaDB 10.11 and MariaDB 11.8."""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pymysql
import pytest

from tests.conftest import lab_provisioner
from tests.writable_tmp import writable_tmp
from upgradelab.targets.provisioners import Endpoint, LocalProvisioner, ServerConnection
from upgradelab.targets.workload_user import workload_endpoint

SERVERS = ["mysql-9.7", "mariadb-10.11", "mariadb-11.8"]
DATABASE = "lab_sandbox"
_BOTH = "DATA DIRECTORY='{outside}' INDEX DIRECTORY='{outside}'"
# (case, CREATE TABLE with {table} and {outside}): every way a table names a directory of its own.
DIRECTORY_CLAUSES = [
    ("myisam", f"CREATE TABLE {{table}} (id INT) ENGINE=MyISAM {_BOTH}"),
    ("innodb", "CREATE TABLE {table} (id INT) ENGINE=InnoDB DATA DIRECTORY='{outside}'"),
    ("aria", f"CREATE TABLE {{table}} (id INT) ENGINE=Aria {_BOTH}"),
    ("myisam-partition", f"CREATE TABLE {{table}} (id INT) ENGINE=MyISAM PARTITION BY HASH(id) "
        f"(PARTITION p0 {_BOTH})"),
    ("innodb-partition", "CREATE TABLE {table} (id INT) ENGINE=InnoDB PARTITION BY HASH(id) "
        "(PARTITION p0 DATA DIRECTORY='{outside}')"),
]  # fmt: skip


@dataclass
class Sandboxed:
    """A started lab server, its provisioner and its admin (lab user) endpoint."""

    provisioner: LocalProvisioner
    admin: Endpoint

    def connect(self, who: str) -> ServerConnection:
        """A connection as `who`: "workload" (the least-privileged user) or "admin" (the lab user)."""
        admin = self.admin.connect()
        if who == "admin":
            return admin
        try:
            return workload_endpoint(admin, self.admin).connect()
        finally:
            admin.close()


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest, database: None) -> Iterator[Sandboxed]:
    provisioner = lab_provisioner(request.param, suffix="sandbox")
    endpoint = provisioner.start([])
    connection = endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE IF NOT EXISTS {DATABASE}")
    connection.close()
    yield Sandboxed(provisioner, endpoint)
    provisioner.stop()


@pytest.fixture
def outside(server: Sandboxed) -> Iterator[list[Path]]:
    """A directory the server could write (mode 777) outside its datadir: `/tmp/<name>` as the server
    sees it; yields the host paths to look in (the chroot's /tmp and the host's /tmp)."""
    with writable_tmp(server.provisioner.root, "outside") as places:
        yield places


def _variables(server: Sandboxed) -> dict[str, str]:
    connection = server.admin.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SHOW GLOBAL VARIABLES WHERE Variable_name IN ('have_symlink', 'local_infile')")
            return {str(name): str(value) for name, value in cursor.fetchall()}
    finally:
        connection.close()


def test_every_lab_server_starts_with_symbolic_links_and_local_infile_off(server: Sandboxed) -> None:
    assert _variables(server) == {"have_symlink": "DISABLED", "local_infile": "OFF"}
    option_file = server.provisioner.describe()["option_file"].splitlines()
    assert "loose-skip-symbolic-links" in option_file and "local-infile=0" in option_file


@pytest.mark.parametrize("who", ["workload", "admin"])
@pytest.mark.parametrize(("case", "statement"), DIRECTORY_CLAUSES, ids=[c for c, _ in DIRECTORY_CLAUSES])
def test_data_and_index_directory_create_no_file_outside_the_datadir(
    server: Sandboxed, outside: list[Path], who: str, case: str, statement: str
) -> None:
    table = f"t_{case.replace('-', '_')}_{who}"
    sql = statement.format(table=table, outside=f"/tmp/{outside[0].name}")
    connection = server.connect(who)
    try:
        connection.select_db(DATABASE)
        with connection.cursor() as cursor:
            try:
                cursor.execute(sql)
                cursor.execute("SHOW WARNINGS")
                outcome = "ignored: " + "; ".join(str(row[2]) for row in cursor.fetchall())
                cursor.execute(f"INSERT INTO {table} VALUES (1)")  # a table that exists writes rows
            except pymysql.MySQLError as error:
                outcome = f"refused: {error.args[0]} {error.args[1]}"
    finally:
        connection.close()
    print(f"{server.provisioner.target_name} {who} {case}: {outcome}")
    for place in outside:
        assert list(place.iterdir()) == [], f"{case} as {who} wrote {place}: {outcome}"
    data = server.provisioner._host("data") / DATABASE
    links = [path for path in data.rglob("*") if path.is_symlink() or path.suffix == ".isl"]
    assert links == [], f"{case} as {who} left links to elsewhere: {links}"


def test_load_data_local_infile_is_refused(server: Sandboxed, tmp_path: Path) -> None:
    rows = tmp_path / "rows.tsv"
    rows.write_text("1\n2\n")
    admin = server.admin.connect(database=DATABASE)
    with admin.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS local_rows (id INT)")
    # The client offers its files (pymysql's local_infile=True); the server must not ask for one.
    workload = workload_endpoint(admin, server.admin)
    client = pymysql.connect(
        host=workload.host,
        port=workload.port,
        user=workload.user,
        password=workload.password,
        database=DATABASE,
        local_infile=True,
        autocommit=True,
    )
    try:
        with client.cursor() as cursor, pytest.raises(pymysql.MySQLError) as refused:
            cursor.execute(f"LOAD DATA LOCAL INFILE '{rows}' INTO TABLE local_rows")
    finally:
        client.close()
    print(f"{server.provisioner.target_name} LOAD DATA LOCAL: {refused.value.args}")
    assert "local" in str(refused.value.args[1]).lower() or refused.value.args[0] == 1148
    with admin.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM local_rows")
        assert cursor.fetchone() == (0,)
    admin.close()
