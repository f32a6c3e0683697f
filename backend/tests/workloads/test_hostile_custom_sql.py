"""Hostile custom SQL on the three lab servers (MySQL 9.7, MariaDB 10.11, MariaDB 11.8), run by the
real custom-sql template as its set-up or its iteration SQL, as the workload user: every statement
that would reach a file outside the server's datadir, an account, a global setting or code from a
library is refused by the server's privileges or options, with the server's error saying what was
denied; no file appears outside the datadir, no account, plugin or function is added, and the
server still answers. DATA DIRECTORY / INDEX DIRECTORY may instead be ignored with a warning
(MariaDB, symbolic links off), as long as the table's files stay in the datadir."""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pymysql
import pytest

from tests.conftest import lab_provisioner
from tests.workloads.helpers import start_for
from tests.writable_tmp import writable_tmp
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.workloads import ServerSession
from upgradelab.workloads.custom_sql import CustomSql, CustomSqlParameters

SERVERS = ["mysql-9.7", "mariadb-10.11", "mariadb-11.8"]
SETUP = "CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY, note TEXT)"
DENIED = r"denied|privilege"
# (case, statement with {outside} = a directory outside the datadir the server could write,
#  what the server's error must say, or None: refused or ignored, but nothing written outside)
HOSTILE = [
    ("myisam-data-directory", "CREATE TABLE d (id INT) ENGINE=MyISAM DATA DIRECTORY='{outside}' "
        "INDEX DIRECTORY='{outside}'", None),
    ("innodb-data-directory", "CREATE TABLE i (id INT) ENGINE=InnoDB DATA DIRECTORY='{outside}'", None),
    ("into-outfile", "SELECT 'x' INTO OUTFILE '{outside}/outfile'", DENIED),
    ("into-dumpfile", "SELECT 'x' INTO DUMPFILE '{outside}/dumpfile'", DENIED),
    ("load-data-infile", "LOAD DATA INFILE '/etc/passwd' INTO TABLE t", DENIED),
    ("create-user", "CREATE USER 'intruder'@'%' IDENTIFIED BY 'x'", r"CREATE USER"),
    ("grant-all", "GRANT ALL ON *.* TO 'upgradelab_workload'@'127.0.0.1'", DENIED),
    ("set-global-log-file", "SET GLOBAL general_log_file = '{outside}/general.log'", DENIED),
    ("set-global-general-log", "SET GLOBAL general_log = ON", DENIED),
    ("install-plugin", "INSTALL PLUGIN federated SONAME 'ha_federatedx.so'", DENIED),
    ("install-soname", "INSTALL SONAME 'ha_federatedx'", DENIED + "|syntax"),
    ("install-component", "INSTALL COMPONENT 'file://component_log_sink_json'", DENIED + "|syntax"),
    ("create-function-soname", "CREATE FUNCTION sys_exec RETURNS INTEGER SONAME 'libc.so.6'", DENIED),
]  # fmt: skip


@dataclass
class Lab:
    """A started lab server, its provisioner and the harness (lab user) session."""

    provisioner: LocalProvisioner
    session: ServerSession


@pytest.fixture(scope="module", params=SERVERS)
def lab(request: pytest.FixtureRequest, database: None) -> Iterator[Lab]:
    provisioner = lab_provisioner(request.param, suffix="hostile-sql")
    session, _ = start_for(provisioner, CustomSql(CustomSqlParameters()))
    one = Lab(provisioner, session)
    _run(one, "iteration", "SELECT 1")  # the workload user exists before any account is counted
    yield one
    session.connection.close()
    provisioner.stop()


@pytest.fixture
def outside(lab: Lab) -> Iterator[list[Path]]:
    """`/tmp/<name>` as the server sees it, mode 777 (the server could write there): the host paths
    to look in (the chroot's /tmp and the host's /tmp)."""
    with writable_tmp(lab.provisioner.root, "custom") as places:
        yield places


def _state(lab: Lab) -> dict[str, object]:
    """What hostile SQL must not change: accounts, plugins, functions, log settings."""
    with lab.session.connection.cursor() as cursor:
        cursor.execute("SELECT user, host FROM mysql.user ORDER BY user, host")
        accounts = cursor.fetchall()
        cursor.execute("SELECT plugin_name FROM information_schema.plugins ORDER BY plugin_name")
        plugins = cursor.fetchall()
        cursor.execute("SELECT name FROM mysql.func ORDER BY name")
        functions = cursor.fetchall()
        cursor.execute("SELECT @@general_log, @@general_log_file")
        log = cursor.fetchone()
    return {"accounts": accounts, "plugins": plugins, "functions": functions, "general log": log}


def _run(lab: Lab, where: str, sql: str) -> None:
    """`sql` as the custom-sql template runs it: as its set-up SQL or as its one iteration statement."""
    setup = f"{SETUP}; {sql}" if where == "setup" else SETUP
    iteration = sql if where == "iteration" else "SELECT 1"
    workload = CustomSql(
        CustomSqlParameters(
            setup_sql=setup, iteration_sql=iteration, teardown_sql="DROP DATABASE IF EXISTS lab_custom"
        )
    )
    try:
        workload.setup(lab.session)
        workload.iteration(lab.session, 1, "")
    finally:
        workload.teardown(lab.session)


@pytest.mark.parametrize("where", ["setup", "iteration"])
@pytest.mark.parametrize(("case", "statement", "error"), HOSTILE, ids=[case for case, _, _ in HOSTILE])
def test_hostile_custom_sql_is_refused_and_leaves_nothing_behind(
    lab: Lab, outside: list[Path], where: str, case: str, statement: str, error: str | None
) -> None:
    before = _state(lab)
    sql = statement.format(outside=f"/tmp/{outside[0].name}")
    try:
        _run(lab, where, sql)
        outcome = "ran"
    except pymysql.MySQLError as refused:
        outcome = f"{refused.args[0]} {refused.args[1]}"
        if error is not None:
            assert re.search(error, str(refused.args[1]), re.IGNORECASE), outcome
    print(f"{lab.provisioner.target_name} {where} {case}: {outcome}")
    if error is not None:
        assert outcome != "ran", f"{case} was not refused"
    for place in outside:
        assert list(place.iterdir()) == [], f"{case} wrote {place}: {outcome}"
    data = lab.provisioner._host("data")
    links = [path for path in data.rglob("*") if path.is_symlink() or path.suffix == ".isl"]
    assert links == [], f"{case} left links out of the datadir: {links}"
    assert _state(lab) == before
    with lab.session.connection.cursor() as cursor:  # the server still answers the harness
        cursor.execute("SELECT 1")
