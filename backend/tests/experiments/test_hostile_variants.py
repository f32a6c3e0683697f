"""Hostile variant options through the API: 422 naming the option and the reason at experiment
creation, checked against the target binary's own option list, which the API builds then when it
is not cached yet (never accepted unchecked); 409 when a stored experiment's option is refused
when a run of it is queued; 503 naming a target whose list cannot be built."""

import shutil
from collections.abc import Iterator, Mapping

import httpx
import pytest
from sqlalchemy import select

from upgradelab.db import sync_session
from upgradelab.execution.status import JobStatus
from upgradelab.runs.models import Experiment, Run
from upgradelab.targets import option_categories as category
from upgradelab.targets.models import Target
from upgradelab.targets.option_names import cache_path

LAB_TARGETS = ["mysql-9.7", "mariadb-10.11", "mariadb-11.8"]


@pytest.fixture
def no_lists(client: httpx.Client) -> Iterator[None]:
    """No option list cached for any target (a fresh install before its first pre-flight)."""
    shutil.rmtree(cache_path("any").parent, ignore_errors=True)
    yield


def _create(client: httpx.Client, variant: Mapping[str, object]) -> httpx.Response:
    return client.post("/api/experiments", json={"workload": "insert-truncate", "variants": [variant]})


@pytest.mark.parametrize("target", LAB_TARGETS)
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
        ("symbolic-links", "1", category.SYMLINKS),
        ("skip-symbolic-links", None, category.SYMLINKS),
        ("local-infile", "1", category.FILE_ACCESS),
        ("loose-local-infile", "ON", category.FILE_ACCESS),
        ("x" * 10_000, "1", "is not a server option name"),
    ],
    ids=lambda one: str(one)[:24],
)
def test_experiment_refuses_a_hostile_option_naming_it_and_the_reason(
    client: httpx.Client, target: str, option: str, value: str | None, reason: str
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


# The cases and their kin (tests/targets/test_hostile_options.py has the full table): each
# name refused alike as a startup option and as SET GLOBAL, on every lab target.
BY_BOTH = [
    ("feedback", "ON", category.PHONE_HOME),
    ("feedback_url", "http://127.0.0.1/", category.PHONE_HOME),
    ("log_error_services", "log_filter_internal,log_sink_syseventlog", category.PLUGIN),
    ("allow_suspicious_udfs", "ON", category.PLUGIN),
    ("symbolic_links", "1", category.SYMLINKS),
    ("local_infile", "ON", category.FILE_ACCESS),
    ("mandatory_roles", "upgradelab@localhost", category.PRIVILEGES),
    ("redirect_url", "mysql://127.0.0.1:1", category.NETWORK),
    ("federated", "ON", category.NETWORK),
    ("gdb", "ON", category.DEBUG),
]


@pytest.mark.parametrize("target", LAB_TARGETS)
@pytest.mark.parametrize(("name", "value", "reason"), BY_BOTH, ids=[name for name, _, _ in BY_BOTH])
def test_a_startup_option_and_its_set_global_are_refused_alike(
    client: httpx.Client, target: str, name: str, value: str, reason: str
) -> None:
    for field, dashed in (("options", name.replace("_", "-")), ("set_global", name)):
        refused = _create(client, {"target": target, "name": "hostile", field: {dashed: value}})
        assert refused.status_code == 422, (field, refused.text)
        [error] = refused.json()["detail"]
        assert dashed in error["msg"] and reason in error["msg"], (field, error)


@pytest.mark.parametrize(
    ("option", "value"),
    [("init-fil", "/tmp/x"), ("datadi", "/tmp"), ("skip-grant", None), ("log-erro", "/tmp/e.log")],
)
def test_creation_builds_a_missing_option_list_and_refuses_a_prefix(
    client: httpx.Client, no_lists: None, option: str, value: str | None
) -> None:
    assert not cache_path("mariadb-11.8").exists()
    refused = _create(client, {"target": "mariadb-11.8", "name": "prefix", "options": {option: value}})
    assert refused.status_code == 422, refused.text
    [error] = refused.json()["detail"]
    assert error["loc"] == ["body", "variants", 0, "options", option]
    assert f"{option!r}" in error["msg"] and "not an option name of mariadbd 11.8" in error["msg"]
    assert cache_path("mariadb-11.8").exists(), "the list was built at creation, and cached"


@pytest.mark.parametrize("target", LAB_TARGETS)
def test_a_good_option_is_accepted_once_the_list_is_built(
    client: httpx.Client, no_lists: None, target: str
) -> None:
    variant = {"target": target, "name": "good", "options": {"innodb_buffer_pool_size": "64M"}}
    created = _create(client, variant)
    assert created.status_code == 201, created.text
    assert created.json()["variants"][0]["options"] == {"innodb-buffer-pool-size": "64M"}
    assert cache_path(target).exists()


@pytest.fixture
def unreadable(client: httpx.Client) -> Iterator[str]:
    """A local target whose binary is gone (removed after the target was added)."""
    name = "no-binary"
    with sync_session() as session:
        session.add(
            Target(
                name=name,
                flavor="mariadb",
                provisioner="local",
                disposable=True,
                settings={"root": "/", "mysqld": "/nonexistent/mariadbd", "port": 1099},
            )
        )
        session.commit()
    yield name
    with sync_session() as session:
        session.delete(session.scalars(select(Target).where(Target.name == name)).one())
        session.commit()


def test_an_option_list_that_cannot_be_built_refuses_the_experiment_naming_the_target(
    client: httpx.Client, no_lists: None, unreadable: str
) -> None:
    refused = _create(client, {"target": unreadable, "name": "x", "options": {"max_connections": "10"}})
    assert refused.status_code == 503, refused.text
    detail = refused.json()["detail"]
    assert f"target {unreadable}" in detail and "option names" in detail and "/nonexistent/mariadbd" in detail
    # nothing to check, nothing refused: the run's pre-flight starts the server
    assert _create(client, {"target": unreadable, "name": "plain"}).status_code == 201


def test_queuing_a_stored_experiment_rechecks_its_options(client: httpx.Client, no_lists: None) -> None:
    """An experiment stored before its target's list existed (or before the binary changed): a new
    run and a re-run of it are refused (409) naming the variant and the option."""
    created = _create(
        client, {"target": "mariadb-11.8", "name": "stored", "options": {"max_connections": "50"}}
    )
    assert created.status_code == 201, created.text
    experiment_id = created.json()["id"]
    with sync_session() as session:
        experiment = session.get(Experiment, experiment_id)
        assert experiment is not None
        experiment.variants = [experiment.variants[0].model_copy(update={"options": {"datadi": "/tmp"}})]
        session.commit()
    refused = client.post(f"/api/experiments/{experiment_id}/runs")
    assert refused.status_code == 409, refused.text
    assert "'stored'" in refused.json()["detail"] and "'datadi'" in refused.json()["detail"]
    with sync_session() as session:
        run = Run(experiment_id=experiment_id, status=JobStatus.failed, targets=",mariadb-11.8,")
        session.add(run)
        session.commit()
        run_id = run.id
    again = client.post(f"/api/runs/{run_id}/rerun")
    assert again.status_code == 409 and "'datadi'" in again.json()["detail"], again.text
    with sync_session() as session:
        runs = session.scalars(select(Run).where(Run.experiment_id == experiment_id)).all()
        assert [one.id for one in runs] == [run_id], "no run was queued"
