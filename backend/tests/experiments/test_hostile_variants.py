"""Hostile variant options through the API: 422 naming the option and the reason at experiment
creation, and a refusal in pre-flight when the target's option list was not cached yet."""

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from tests.conftest import SERVER_DIR
from tests.runs.helpers import submit, wait_final
from upgradelab.db import sync_session
from upgradelab.targets import option_categories as category
from upgradelab.targets.models import Target
from upgradelab.targets.option_names import cache_path, server_names
from upgradelab.targets.provisioners import provisioner_for


@pytest.fixture
def cached(client: httpx.Client) -> Iterator[None]:
    """The seeded targets' option lists, cached as pre-flight caches them."""
    with sync_session() as session:
        for target in session.scalars(select(Target).where(Target.provisioner == "local")):
            server_names(provisioner_for(target))
    yield


def _create(client: httpx.Client, variant: dict[str, object]) -> httpx.Response:
    return client.post("/api/experiments", json={"workload": "insert-truncate", "variants": [variant]})


@pytest.mark.parametrize("target", ["mysql-9.7", "mariadb-10.11"])
@pytest.mark.parametrize(
    ("option", "value", "reason"),
    [
        ("init-fil", "/tmp/x.sql", "not an option name of"),
        ("datadi", "/tmp/d", "not an option name of"),
        ("log-erro", "/tmp/e.log", "not an option name of"),
        ("secure-file-pri", "", category.MANAGED),
        ("log-bin", "/tmp/binlog", category.LOGS),
        ("plugin_load_add", "ha_evil.so", category.PLUGIN),
        ("skip-grant-tables", None, category.GRANTS),
        ("admin-address", "0.0.0.0", category.NETWORK),
        ("init-connect", "DROP DATABASE mysql", category.INIT_SQL),
        ("innodb-tmpdir", "/tmp", category.PATH),
        ("x" * 10_000, "1", "is not a server option name"),
    ],
    ids=lambda one: str(one)[:24],
)
def test_experiment_refuses_a_hostile_option_naming_it_and_the_reason(
    client: httpx.Client, cached: None, target: str, option: str, value: str | None, reason: str
) -> None:
    refused = _create(client, {"target": target, "name": "hostile", "options": {option: value}})
    assert refused.status_code == 422, refused.text
    [error] = refused.json()["detail"]
    assert error["loc"][:3] == ["body", "variants", 0]
    assert reason in error["msg"] and option.replace("_", "-")[:40] in error["msg"]
    assert len(refused.text) < 2000, "long input is cut, not echoed"


@pytest.mark.parametrize(
    ("scope", "variable", "reason"),
    [
        ("set_global", "log_slow_query_file", category.LOGS),
        ("set_global", "debug", category.DEBUG),
        ("set_session", "sql_log_bin", category.BINLOG_BYPASS),
        ("set_global", "local_infile", category.FILE_ACCESS),
    ],
)
def test_experiment_refuses_a_hostile_set_name(
    client: httpx.Client, scope: str, variable: str, reason: str
) -> None:
    refused = _create(client, {"target": "mariadb-10.11", "name": "hostile", scope: {variable: "1"}})
    assert refused.status_code == 422, refused.text
    [error] = refused.json()["detail"]
    assert variable in error["msg"] and reason in error["msg"]


def test_preflight_refuses_a_prefix_when_the_list_was_not_cached(client: httpx.Client) -> None:
    cache_path("mariadb-10.11").unlink(missing_ok=True)
    variant = {"target": "mariadb-10.11", "name": "prefix", "options": {"datadi": "/tmp/d"}}
    run_id = submit(client, [variant], 2)
    run = wait_final(client, run_id, timeout_s=120)
    assert run["status"] == "failed"
    assert "'datadi'" in run["error"] and "not an option name of mariadbd" in run["error"]
    option_files = Path(SERVER_DIR, "mariadb-10.11").glob("*.cnf")
    assert not any("\ndatadi=" in path.read_text() for path in option_files)
