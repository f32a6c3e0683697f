"""Article 003's innodb_parallel_read_threads sweep: MySQL only, refused up front on MariaDB."""

import httpx
import pytest

from tests import ports
from tests.conftest import lab_provisioner
from tests.workloads.helpers import run_experiment, start_for
from upgradelab.workloads.parallel_read import DATABASE, ParallelRead, ParallelReadParameters


def test_prepare_makes_2_to_the_n_rows_and_iteration_sets_the_session_threads(database: None) -> None:
    provisioner = lab_provisioner("mysql-9.7", ports.PARALLEL_READ, suffix="parallel-read")
    workload = ParallelRead(ParallelReadParameters(log2_rows=10, threads=[1, 4], buffer_pool_size="64M"))
    server, progress = start_for(provisioner, workload)
    try:
        workload.prepare(server)
        assert [p.rows for p in progress][-1] == 1024
        [timing] = workload.iteration(server, 1, "threads=4")
        assert timing.statement == "SELECT COUNT(*) FROM item" and timing.elapsed_s > 0
        with server.connection.cursor() as cursor:
            cursor.execute("SELECT @@SESSION.innodb_parallel_read_threads")
            assert cursor.fetchone() == (4,)
            cursor.execute(f"SELECT COUNT(*), COUNT(DISTINCT id) FROM {DATABASE}.item")
            assert cursor.fetchone() == (1024, 1024)
    finally:
        server.connection.close()
        provisioner.stop()


def test_sweep_on_mariadb_is_refused_naming_the_variant(client: httpx.Client, database: None) -> None:
    body = {"workload": "parallel-read", "variants": [{"target": "mariadb-10.11", "name": "maria"}]}
    refused = client.post("/api/experiments", json=body)
    assert refused.status_code == 422
    [error] = refused.json()["detail"]
    assert error["loc"] == ["body", "variants", 0, "target"]
    assert "'maria'" in error["msg"] and "innodb_parallel_read_threads" in error["msg"]


@pytest.mark.timeout(300)
def test_sweep_restarts_before_each_thread_setting(client: httpx.Client) -> None:
    body = {
        "workload": "parallel-read",
        "iterations": 2,
        "parameters": {"log2_rows": 10, "threads": [1, 2], "buffer_pool_size": "64M"},  # order, not size
        "variants": [{"target": "mysql-9.7"}],
        "schedule": "sequential",  # each thread setting's iterations in a row, as the article ran them
    }
    result = run_experiment(client, body)
    assert result["run"]["status"] == "succeeded", result["run"]["error"]
    assert result["experiment"]["policy"] == "cold_each_group"
    rows = result["groups"]["iterations"]
    assert [(r["iteration"], r["group"]) for r in rows] == [
        (1, "threads=1"), (2, "threads=1"), (3, "threads=2"), (4, "threads=2"),
    ]  # fmt: skip
