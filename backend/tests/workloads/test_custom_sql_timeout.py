"""Custom SQL is bounded: a statement that never ends stops at `statement_timeout_s` on MySQL 9.7 and
MariaDB 10.11, in set-up and in an iteration; through `upgradelab run --statement-timeout` the run's
variants fail quickly with a message naming the statement, and no server is left behind. A bound
out of range is a 422 naming the parameter."""

import subprocess
import time
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import select

from tests.conftest import BIN
from tests.workloads.helpers import start_for
from upgradelab.db import sync_session
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner, provisioner_for
from upgradelab.targets.statement_timeout import StatementTimedOut
from upgradelab.workloads import ServerSession
from upgradelab.workloads.custom_sql import CustomSql, CustomSqlParameters


@pytest.fixture(scope="module")
def server(provisioner: LocalProvisioner) -> Iterator[ServerSession]:
    one, _ = start_for(provisioner, CustomSql(CustomSqlParameters()))
    yield one
    one.connection.close()


@pytest.mark.parametrize(
    ("phase", "parameters"),
    [
        ("iteration", {"iteration_sql": "SELECT 1; SELECT SLEEP(60); SELECT 2"}),
        ("setup", {"setup_sql": "DO SLEEP(60)"}),
    ],
)
def test_a_statement_past_the_bound_ends_naming_it(
    server: ServerSession, phase: str, parameters: dict[str, str]
) -> None:
    workload = CustomSql(CustomSqlParameters(statement_timeout_s=1.5, **parameters))
    started = time.monotonic()
    with pytest.raises(StatementTimedOut) as ended:
        if phase == "setup":
            workload.setup(server)
        else:
            workload.setup(server)
            workload.iteration(server, 1, "")
    assert time.monotonic() - started < 4.5
    slow = "SELECT SLEEP(60)" if phase == "iteration" else "DO SLEEP(60)"
    assert str(ended.value) == f"statement timed out after 1.5 s: {slow}"
    workload.teardown(server)  # the workload connection still answers after the kill


def _run(api: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "upgradelab"), "run", "--api", api, *args], capture_output=True, text=True, timeout=300
    )


def test_run_statement_timeout_fails_each_variant_quickly_naming_the_statement(
    api: str, client: httpx.Client
) -> None:
    targets = ["mysql-9.7", "mariadb-10.11"]
    started = time.monotonic()
    done = _run(
        api, "--workload", "custom-sql", "--variant", targets[0], "--variant", targets[1],
        "--iterations", "2", "--param", "iteration_sql=SELECT SLEEP(60)", "--statement-timeout", "2",
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert elapsed < 90, elapsed  # two servers started, two statements ended at 2 s (not 60 s)
    run_id = int(done.stdout.split()[1].rstrip(":"))
    run = client.get(f"/api/runs/{run_id}").json()
    assert run["status"] == "failed"
    errors = {v["target"]: v["error"] for v in run["variant_states"]}
    for target in targets:
        assert errors[target] and "statement timed out after 2 s: SELECT SLEEP(60)" in errors[target]
    with sync_session() as session:
        rows = session.scalars(select(Target).where(Target.name.in_(targets))).all()
    assert {t.name: provisioner_for(t).pid() for t in rows} == dict.fromkeys(targets)


def test_statement_timeout_is_custom_sql_only_on_the_cli(api: str) -> None:
    done = _run(api, "--workload", "insert-truncate", "--variant", "mysql-9.7", "--statement-timeout", "2")
    assert done.returncode == 2 and "--statement-timeout" in done.stderr and "custom-sql only" in done.stderr


@pytest.mark.parametrize("value", [0, 0.05, 3601])
def test_a_bound_out_of_range_is_a_422_naming_the_parameter(client: httpx.Client, value: float) -> None:
    body = {
        "workload": "custom-sql",
        "parameters": {"iteration_sql": "SELECT 1", "statement_timeout_s": value},
        "variants": [{"target": "mysql-9.7"}],
    }
    refused = client.post("/api/experiments", json=body)
    assert refused.status_code == 422
    assert refused.json()["detail"][0]["loc"] == ["body", "parameters", "statement_timeout_s"]
