"""Custom SQL: statements split and timed one by one; only on disposable targets."""

from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import select

from tests.workloads.helpers import start_for
from upgradelab.db import sync_session
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.workloads import ServerSession
from upgradelab.workloads.custom_sql import CustomSql, CustomSqlParameters, split_statements

PARAMS = CustomSqlParameters(
    database="lab_custom",
    setup_sql="CREATE TABLE t (id INT PRIMARY KEY, note VARCHAR(20));",
    iteration_sql="INSERT INTO t VALUES (1, 'a;b'); -- a comment; with a semicolon\nDELETE FROM t;",
    teardown_sql="DROP DATABASE lab_custom",
)


@pytest.fixture(scope="module")
def server(provisioner: LocalProvisioner) -> Iterator[ServerSession]:
    one, _ = start_for(provisioner, CustomSql(PARAMS))
    yield one
    one.connection.close()


def test_split_respects_quotes_and_comments() -> None:
    assert split_statements("SELECT ';'; SELECT 2;\n\n") == ["SELECT ';'", "SELECT 2"]


def test_setup_iteration_teardown_run_the_users_sql(server: ServerSession) -> None:
    workload = CustomSql(PARAMS)
    workload.setup(server)
    timings = workload.iteration(server, 1, "")
    assert [t.statement[:29] for t in timings] == ["INSERT INTO t VALUES (1, 'a;b", "DELETE FROM t"]
    assert all(t.elapsed_s > 0 for t in timings)
    workload.teardown(server)
    with server.connection.cursor() as cursor:
        cursor.execute("SHOW DATABASES LIKE 'lab_custom'")
        assert cursor.fetchone() is None


def test_one_workload_keeps_each_variants_connection_across_set_ups_and_blocks(server: ServerSession) -> None:
    """A run's one workload object serves every variant: their set-ups (in parallel threads at start)
    and interleaved blocks must not drop or reopen each other's connection. Two sessions on the
    module's server stand for two variants; each keeps its own workload connection."""
    other = ServerSession(server.endpoint.connect(), server.endpoint, server.target)
    params = PARAMS.model_copy(update={"setup_sql": "", "iteration_sql": "SELECT 1", "teardown_sql": ""})
    workload = CustomSql(params)
    try:
        workload.setup(server)
        workload.setup(other)  # before: dropped the connection `server`'s set-up had opened
        first = {id(s): workload._workload(s) for s in (server, other)}
        for _ in range(2):  # interleaved blocks: before, each switch closed the other's connection
            for session in (server, other):
                workload.iteration(session, 1, "")
                assert workload._workload(session) is first[id(session)]
        assert first[id(server)] is not first[id(other)] and first[id(server)].open
    finally:
        workload.teardown(server)
        workload.teardown(other)
        other.connection.close()


def test_a_target_not_marked_disposable_is_refused(client: httpx.Client) -> None:
    def mark(disposable: bool) -> None:
        with sync_session() as session:
            session.scalars(
                select(Target).where(Target.name == "mariadb-10.11")
            ).one().disposable = disposable
            session.commit()

    mark(False)
    try:
        body = {"workload": "custom-sql", "parameters": {"iteration_sql": "SELECT 1"}, "variants": [
            {"target": "mysql-9.7"}, {"target": "mariadb-10.11"}]}  # fmt: skip
        refused = client.post("/api/experiments", json=body)
    finally:
        mark(True)
    assert refused.status_code == 422
    [error] = refused.json()["detail"]
    assert error["loc"] == ["body", "variants", 1, "target"]
    assert "not marked disposable" in error["msg"]
