"""Custom SQL runs as the least-privileged workload user, on servers whose secure-file-priv is an empty
directory of the lab's: file access, SET GLOBAL, SHUTDOWN and account changes are refused on MySQL 9.7
and MariaDB 10.11, while the template's own SQL still works."""

from collections.abc import Iterator
from dataclasses import replace

import pymysql
import pytest
from pydantic import ValidationError

from tests.workloads.helpers import start_for
from upgradelab.datasets.accounts import replay_account
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.workload_user import WORKLOAD_USER, workload_endpoint
from upgradelab.workloads import ServerSession
from upgradelab.workloads.custom_sql import CustomSql, CustomSqlParameters

SETUP = "CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY, note TEXT)"


@pytest.fixture(scope="module")
def server(provisioner: LocalProvisioner) -> Iterator[ServerSession]:
    one, _ = start_for(provisioner, CustomSql(CustomSqlParameters()))
    yield one
    one.connection.close()


def _run(server: ServerSession, sql: str) -> None:
    """`sql` as custom SQL's one iteration statement, after the set-up (as a run executes it)."""
    workload = CustomSql(CustomSqlParameters(setup_sql=SETUP, iteration_sql=sql))
    workload.setup(server)
    try:
        workload.iteration(server, 1, "")
    finally:
        workload.teardown(server)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 'x' INTO OUTFILE '/tmp/upgradelab-h3-outfile'",
        "LOAD DATA INFILE '/etc/passwd' INTO TABLE t",
        "SET GLOBAL max_connections = 10",
        "SET SESSION sql_log_bin = 0",
        "SHUTDOWN",
        "CREATE USER 'intruder'@'%' IDENTIFIED BY 'x'",
        "GRANT ALL PRIVILEGES ON *.* TO CURRENT_USER()",
        "SELECT * FROM mysql.user",
        "CREATE DATABASE not_the_labs",
    ],
)
def test_custom_sql_cannot_reach_files_settings_accounts_or_the_server(
    server: ServerSession, sql: str
) -> None:
    with pytest.raises(pymysql.MySQLError) as refused:
        _run(server, sql)
    assert refused.value.args[0] in {1044, 1045, 1142, 1227, 1095, 1370, 1410, 1064}, refused.value
    with server.connection.cursor() as cursor:  # the server still answers, the harness still can
        cursor.execute("SELECT 1")


def test_load_file_reads_nothing(server: ServerSession) -> None:
    _run(server, "INSERT INTO t VALUES (1, LOAD_FILE('/etc/passwd'))")
    # teardown is empty: the row is still there for the harness to read
    with server.connection.cursor() as cursor:
        cursor.execute("SELECT note IS NULL FROM lab_custom.t WHERE id = 1")
        assert cursor.fetchone() == (1,)
        cursor.execute("DROP DATABASE lab_custom")


def test_workload_user_holds_no_global_privilege(server: ServerSession) -> None:
    _run(server, "SELECT 1")
    with server.connection.cursor() as cursor:
        cursor.execute(f"SHOW GRANTS FOR '{WORKLOAD_USER}'@'127.0.0.1'")
        grants = [str(row[0]) for row in cursor.fetchall()]
    assert grants[0].startswith("GRANT USAGE ON *.*"), grants
    assert [g for g in grants[1:] if "ON `lab\\_%`.*" not in g] == [], grants
    assert not any("WITH GRANT OPTION" in g for g in grants)


def test_secure_file_priv_is_an_empty_directory_of_the_labs(
    provisioner: LocalProvisioner, server: ServerSession
) -> None:
    with server.connection.cursor() as cursor:
        cursor.execute("SELECT @@secure_file_priv")
        (directory,) = cursor.fetchone() or ("",)
        assert (
            str(directory)
            .rstrip("/")
            .endswith(f"{provisioner.target_name}/instances/{provisioner.slot}/files")
        )
        # even the harness, which holds FILE, cannot write elsewhere
        with pytest.raises(pymysql.MySQLError, match=r"secure.file.priv"):
            cursor.execute("SELECT 'x' INTO OUTFILE '/tmp/upgradelab-h3-outfile'")
    assert list(provisioner._host("files").iterdir()) == []


def test_the_templates_own_sql_still_runs_as_the_workload_user(server: ServerSession) -> None:
    workload = CustomSql(
        CustomSqlParameters(
            setup_sql=SETUP,
            iteration_sql="INSERT INTO t VALUES (2, 'a'); SELECT COUNT(*) FROM t; DELETE FROM t",
            teardown_sql="DROP DATABASE lab_custom",
        )
    )
    workload.setup(server)
    assert [t.statement for t in workload.iteration(server, 1, "")][1] == "SELECT COUNT(*) FROM t"
    with workload._workload(server).cursor() as cursor:
        cursor.execute("SELECT CURRENT_USER()")
        assert str((cursor.fetchone() or ("",))[0]).startswith(WORKLOAD_USER + "@")
    workload.teardown(server)


# ---- issue 44, item 7: no lab account changes its own password ---------------------------------------
SELF_CHANGES = [
    "SET PASSWORD = 'chosen-by-the-sql'",
    "ALTER USER CURRENT_USER() IDENTIFIED BY 'chosen-by-the-sql'",
]


@pytest.mark.parametrize("sql", SELF_CHANGES)
def test_custom_sql_that_changes_an_accounts_password_is_refused_before_it_runs(sql: str) -> None:
    with pytest.raises(ValidationError, match=r"statement 2 \((SET PASSWORD|ALTER USER)\) could change"):
        CustomSqlParameters(iteration_sql=f"SELECT 1; {sql}")
    with pytest.raises(ValidationError, match="PREPARE of an expression"):
        CustomSqlParameters(setup_sql="SET @q = 'SELECT 1'; PREPARE s FROM @q")


@pytest.mark.parametrize("user", ["workload", "replay writer"])
def test_a_lab_account_cannot_change_its_own_password_on_mysql(
    server: ServerSession, provisioner: LocalProvisioner, user: str
) -> None:
    """MySQL: every lab account needs its current password to change its own (PASSWORD REQUIRE
    CURRENT), which only the lab had; MariaDB has no such clause: there the server lets it, which is
    why the SQL is refused before it runs (the test above, and tests/replay's API test)."""
    admin = server.connection
    if user == "workload":
        endpoint = workload_endpoint(admin, server.endpoint)
    else:
        name, password = replay_account(admin, ["own_password_db"], writes=True)
        endpoint = replace(server.endpoint, user=name, password=password)
    connection = endpoint.connect()
    try:
        with connection.cursor() as cursor:
            if provisioner.flavor == "mariadb":
                cursor.execute("SET PASSWORD = PASSWORD('chosen-by-the-sql')")  # the server lets any account
                return
            with pytest.raises(pymysql.MySQLError) as refused:
                cursor.execute(SELF_CHANGES[0])
            assert refused.value.args[0] == 3892, refused.value  # the current password is needed
            with pytest.raises(pymysql.MySQLError):
                cursor.execute(SELF_CHANGES[1])
    finally:
        connection.close()
