"""Article 001's INSERT/TRUNCATE workload: its SQL effects on the real servers."""

from collections.abc import Iterator

import pytest

from tests.workloads.helpers import start_for
from upgradelab.targets.provisioners import LocalProvisioner, ServerConnection
from upgradelab.workloads import ServerSession
from upgradelab.workloads.insert_truncate import DATABASE, TABLES, InsertTruncate


@pytest.fixture(scope="module")
def server(provisioner: LocalProvisioner) -> Iterator[ServerSession]:
    one, _ = start_for(provisioner, InsertTruncate())
    yield one
    one.connection.close()


@pytest.fixture
def connection(server: ServerSession) -> ServerConnection:
    return server.connection


def _status(connection: ServerConnection, name: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SHOW SESSION STATUS LIKE %s", (name,))
        row = cursor.fetchone()
    assert row is not None
    return int(row[1])


def test_setup_creates_the_articles_five_tables_in_utf8mb4_general_ci(
    server: ServerSession, connection: ServerConnection
) -> None:
    InsertTruncate().setup(server)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT TABLE_NAME, TABLE_COLLATION, ENGINE FROM information_schema.TABLES "
            "WHERE TABLE_SCHEMA = %s ORDER BY TABLE_NAME",
            (DATABASE,),
        )
        rows = cursor.fetchall()
        cursor.execute("SELECT @@character_set_server, @@collation_server")
        charset = cursor.fetchone()
    assert rows == tuple((table, "utf8mb4_general_ci", "InnoDB") for table in TABLES)
    assert charset == ("utf8mb4", "utf8mb4_general_ci")


def test_iteration_inserts_into_each_table_then_truncates_each(
    server: ServerSession, connection: ServerConnection
) -> None:
    workload = InsertTruncate()
    workload.setup(server)
    inserts, truncates = _status(connection, "Com_insert"), _status(connection, "Com_truncate")
    timings = workload.iteration(server, 1, "")
    assert [t.statement for t in timings] == [f"INSERT {t}" for t in TABLES] + [
        f"TRUNCATE {t}" for t in TABLES
    ]
    assert all(t.elapsed_s > 0 for t in timings)
    assert _status(connection, "Com_insert") - inserts == 5
    assert _status(connection, "Com_truncate") - truncates == 5
    with connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(f"SELECT COUNT(*) FROM {DATABASE}.{table}")
            assert cursor.fetchone() == (0,)
        # TRUNCATE, not DELETE: the AUTO_INCREMENT counter starts over, so the next id is 1 again.
        cursor.execute(f"INSERT INTO {DATABASE}.test1 (name) VALUES ('probe')")
        cursor.execute("SELECT LAST_INSERT_ID()")
        assert cursor.fetchone() == (1,)


def test_teardown_drops_the_database(server: ServerSession, connection: ServerConnection) -> None:
    workload = InsertTruncate()
    workload.setup(server)
    workload.teardown(server)
    with connection.cursor() as cursor:
        cursor.execute("SHOW DATABASES LIKE %s", (DATABASE,))
        assert cursor.fetchone() is None
