"""One experiment over three kinds of target through the real API, Redis queue and Celery worker:
a docker target (the locally built MySQL 9.7 image), a tarball target (a basedir made from Debian's
MySQL 9.7 files) and the lab's local MariaDB 10.11, side by side; no container is left behind."""

from collections.abc import Iterator

import httpx
import pytest
from typer.testing import CliRunner

from tests import ports
from tests.conftest import auth_headers
from tests.lab_images import (
    MYSQL_CHROOT,
    MYSQL_IMAGE,
    lab_images,
    labelled_containers,
    tarball_basedir,
)
from tests.runs.helpers import submit, wait_final
from upgradelab.cli import app
from upgradelab.targets.provisioners.docker import cleanup

pytestmark = pytest.mark.docker

DOCKER_TARGET = f"mysql-9.7-docker-t{ports.SESSION}"  # two checkouts testing at once stay apart
TARBALL_TARGET = f"mysql-9.7-tarball-t{ports.SESSION}"


@pytest.fixture(scope="module")
def mixed_targets(client: httpx.Client) -> Iterator[None]:
    """The docker and tarball targets, added through POST /api/targets; their volumes removed after."""
    lab_images()
    for body in (
        {
            "name": DOCKER_TARGET,
            "flavor": "mysql",
            "provisioner": "docker",
            "settings": {
                "image": MYSQL_IMAGE,
                "port": ports.MIXED_DOCKER,
                "base_options": {"innodb_buffer_pool_size": "128M"},
            },
        },
        {
            "name": TARBALL_TARGET,
            "flavor": "mysql",
            "provisioner": "tarball",
            "settings": {
                "root": str(MYSQL_CHROOT),
                "basedir": tarball_basedir(),
                "port": ports.MIXED_TARBALL,
            },
        },
    ):
        created = client.post("/api/targets", json=body)
        assert created.status_code == 201, created.text
        assert created.json()["provisioner"] == body["provisioner"] and "settings" not in created.json()
    yield
    cleanup(DOCKER_TARGET, templates=True)


@pytest.fixture(scope="module")
def client(api: str) -> Iterator[httpx.Client]:
    """A signed-in client on the test API for the whole module (the targets fixture is module-wide too)."""
    with httpx.Client(base_url=api, timeout=30, headers=auth_headers()) as http:
        yield http


def test_docker_tarball_and_local_variants_run_side_by_side(
    client: httpx.Client, mixed_targets: None
) -> None:
    variants = [{"target": DOCKER_TARGET}, {"target": TARBALL_TARGET}, {"target": "mariadb-10.11"}]
    run_id = submit(client, variants, iterations=3)
    run = wait_final(client, run_id, timeout_s=400)
    assert run["status"] == "succeeded", run["error"]
    results = client.get(f"/api/runs/{run_id}/results").json()
    assert [s["variant"] for s in results["series"]] == [
        f"{DOCKER_TARGET} default",
        f"{TARBALL_TARGET} default",
        "mariadb-10.11 default",
    ]
    assert [len(s["iterations"]) for s in results["series"]] == [3, 3, 3]
    assert all(t > 0 for s in results["series"] for t in s["elapsed_s"])
    versions = {t["name"]: t["version"] for t in client.get("/api/targets").json()}
    assert versions[DOCKER_TARGET].startswith("9.7.") and versions[TARBALL_TARGET].startswith("9.7.")
    assert labelled_containers(DOCKER_TARGET) == []


def test_docker_variant_whose_server_dies_fails_the_run_with_its_log_and_leaves_no_container(
    client: httpx.Client, mixed_targets: None
) -> None:
    # innodb_page_size passes --validate-config but the template's datadir was made with 16k pages.
    variants = [{"target": DOCKER_TARGET, "name": "8k-pages", "options": {"innodb_page_size": "8k"}}]
    run = wait_final(client, submit(client, variants, iterations=2), timeout_s=300)
    assert run["status"] == "failed"
    assert "variant '8k-pages'" in run["error"] and "container log tail" in run["error"]
    assert "[ERROR]" in run["error"]
    assert labelled_containers(DOCKER_TARGET) == []


def test_new_target_with_bad_settings_is_refused_naming_the_field(client: httpx.Client) -> None:
    body = {
        "name": "mysql-8.0",
        "flavor": "mysql",
        "provisioner": "docker",
        "settings": {"image": "mysql:8.0"},
    }
    refused = client.post("/api/targets", json=body)
    assert refused.status_code == 422
    assert refused.json()["detail"][0]["loc"] == ["body", "settings", "port"]
    unknown = client.post("/api/targets", json={**body, "provisioner": "podman"})
    assert unknown.json()["detail"][0]["loc"] == ["body", "provisioner"]
    taken = client.post(
        "/api/targets",
        json={
            "name": "mariadb-10.11",
            "flavor": "mariadb",
            "provisioner": "docker",
            "settings": {"image": "mariadb:11.8", "port": 33118},
        },
    )
    assert taken.status_code == 422 and taken.json()["detail"][0]["loc"] == ["body", "name"]


def test_cli_adds_a_docker_target_and_names_the_refused_field(api: str, client: httpx.Client) -> None:
    added = CliRunner().invoke(
        app,
        [
            "targets",
            "add",
            f"mysql-8.0-cli-t{ports.SESSION}",
            "--image",
            "mysql:8.0.40",
            "--port",
            "33080",
            "--api",
            api,
        ],
    )
    assert added.exit_code == 0, added.output
    listed = {t["name"]: t["provisioner"] for t in client.get("/api/targets").json()}
    assert listed[f"mysql-8.0-cli-t{ports.SESSION}"] == "docker"
    refused = CliRunner().invoke(
        app, ["targets", "add", "mysql-5.7", "--image", "mysql:5.7.44", "--port", "80", "--api", api]
    )
    assert refused.exit_code == 2 and "settings.port" in refused.output
