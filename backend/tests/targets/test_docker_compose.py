"""compose.yaml, checked by a real Compose v2 client (Debian trixie's docker-compose, installed by
infra/docker/install.sh); the whole stack built and brought up unless UPGRADELAB_TEST_COMPOSE=0."""

import json
import os
import secrets
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests import ports
from tests.lab_images import MYSQL_IMAGE, lab_images, labelled_containers
from tests.runs.helpers import submit, wait_final
from upgradelab.settings import REPO_ROOT
from upgradelab.targets.provisioners.docker import cleanup

pytestmark = pytest.mark.docker

# Ports of a test stack, apart from `make up` (8700, 6380) and other checkouts.
STACK_ENV = {
    "UPGRADELAB_API_PORT": str(ports.COMPOSE_API),
    "UPGRADELAB_REDIS_PORT": str(ports.COMPOSE_REDIS),
    "UPGRADELAB_DB_PORT": str(ports.COMPOSE_DB),
    # compose.yaml has no default for the metadata database's passwords (issue 30: no fixed secret)
    "UPGRADELAB_DB_PASSWORD": secrets.token_hex(16),
    "UPGRADELAB_DB_ROOT_PASSWORD": secrets.token_hex(16),
}
PROJECT = f"upgradelab-test-{ports.SESSION}"
USERS = ["exec", "-T", "api", "upgradelab", "users"]  # the CLI inside the stack's api container


def _compose(*args: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["docker", "compose", "-p", PROJECT, "-f", str(REPO_ROOT / "compose.yaml"), *args],
        capture_output=True,
        text=True,
        check=check,
        timeout=timeout,
        env={**os.environ, **STACK_ENV},
    )


def _config() -> dict[str, Any]:
    lab_images()  # dockerd up
    parsed: dict[str, Any] = json.loads(_compose("config", "--format", "json").stdout)
    return parsed


def test_compose_file_is_valid_and_every_service_has_a_health_check() -> None:
    services = _config()["services"]
    assert set(services) == {"api", "worker", "redis", "metadata"}
    assert all("healthcheck" in service for service in services.values())
    assert {name: dep["condition"] for name, dep in services["api"]["depends_on"].items()} == {
        "metadata": "service_healthy",
        "redis": "service_healthy",
    }
    assert {name: dep["condition"] for name, dep in services["worker"]["depends_on"].items()} == {
        "api": "service_healthy",
        "redis": "service_healthy",
    }


def test_the_metadata_database_has_no_default_password() -> None:
    """compose.yaml listens on 127.0.0.1 with host networking: a default password would let any local
    user into the lab's metadata (issue 30). Without UPGRADELAB_DB_PASSWORD the stack is not configured."""
    lab_images()  # dockerd up
    env = {k: v for k, v in {**os.environ, **STACK_ENV}.items() if not k.startswith("UPGRADELAB_DB_")}
    done = subprocess.run(
        ["docker", "compose", "-p", PROJECT, "-f", str(REPO_ROOT / "compose.yaml"), "config", "-q"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env=env,
    )
    assert done.returncode != 0
    assert "UPGRADELAB_DB_PASSWORD" in done.stderr or "UPGRADELAB_DB_ROOT_PASSWORD" in done.stderr
    rendered = json.dumps(_config())
    assert "upgradelab-root" not in rendered
    assert STACK_ENV["UPGRADELAB_DB_PASSWORD"] in rendered


def test_worker_reaches_the_docker_engine_and_everything_stays_on_the_host_network() -> None:
    services = _config()["services"]
    mounts = {(m["source"], m["target"]) for m in services["worker"].get("volumes", [])}
    assert ("/var/run/docker.sock", "/var/run/docker.sock") in mounts
    assert {service["network_mode"] for service in services.values()} == {"host"}
    environment = services["worker"]["environment"]
    assert environment["UPGRADELAB_DATABASE_URL"].startswith("mysql+aiomysql://")
    assert environment["UPGRADELAB_REDIS_URL"] == f"redis://127.0.0.1:{STACK_ENV['UPGRADELAB_REDIS_PORT']}/0"


def test_an_undefined_service_in_depends_on_is_refused_by_compose(tmp_path: Any) -> None:
    # The client really validates: a broken copy of the file fails `config`.
    broken = (
        (REPO_ROOT / "compose.yaml")
        .read_text()
        .replace("condition: service_healthy", "condition: healthy", 1)
    )
    (tmp_path / "compose.yaml").write_text(broken)
    lab_images()
    done = subprocess.run(
        ["docker", "compose", "-f", str(tmp_path / "compose.yaml"), "config", "-q"],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO_ROOT,
        env={**os.environ, **STACK_ENV},
    )
    assert done.returncode != 0 and "condition" in done.stderr


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[str, str]]:
    """The compose stack built from the local base image and started; its API URL and an admin's token,
    both made by the CLI inside the api container (an exec costs ~12 s: made once for the module)."""
    if os.environ.get("UPGRADELAB_TEST_COMPOSE") == "0":
        pytest.skip("UPGRADELAB_TEST_COMPOSE=0: the compose stack is not built and started")
    lab_images()
    subprocess.run(["bash", str(REPO_ROOT / "infra" / "docker" / "wheels.sh")], check=True)
    env_build = {**os.environ, **STACK_ENV, "DOCKER_BUILDKIT": "0", "COMPOSE_DOCKER_CLI_BUILD": "0"}
    # api and worker share one build (compose.yaml's x-app: the same Dockerfile, args and image tag),
    # which compose would run twice (the whole repository sent as context each time, ~10 s); built
    # through api, the worker's image is the same one, and `up` below finds it present.
    services = ["metadata", "redis", "api"]
    subprocess.run(
        ["docker", "compose", "-p", PROJECT, "-f", str(REPO_ROOT / "compose.yaml"), "build", *services],
        check=True,
        env=env_build,
        timeout=900,
    )
    try:
        _compose("up", "-d", "--wait", "--wait-timeout", "240", timeout=300)
        _compose(*USERS, "create-admin", "--username", "admin", "--password", "compose-admin-pw")
        token = _compose(*USERS, "token", "--username", "admin").stdout.strip()
        yield f"http://127.0.0.1:{STACK_ENV['UPGRADELAB_API_PORT']}", token
    finally:
        logs = _compose("logs", "--tail", "30", check=False).stdout
        _compose("down", "-v", "--remove-orphans", check=False)
        print(logs)


@pytest.mark.compose
def test_stack_serves_the_ui_and_api_and_its_worker_answers(stack: tuple[str, str]) -> None:
    url, token = stack
    with httpx.Client(base_url=url, timeout=10) as client:
        assert client.get("/api/targets").status_code == 401  # the stack's API needs signing in
        client.headers["Authorization"] = f"Bearer {token}"
        names = {target["name"] for target in client.get("/api/targets").json()}
        assert {"mysql-9.7", "mariadb-10.11"} <= names  # migrations ran on the MariaDB metadata DB
        assert '<div id="root"' in client.get("/").text
        added = client.post(
            "/api/targets",
            json={
                "name": "mysql-8.0",
                "flavor": "mysql",
                "provisioner": "docker",
                "settings": {"image": "mysql:8.0.40", "port": 33080},
            },
        )
        assert added.status_code == 201, added.text
    deadline = time.monotonic() + 120
    while _compose("ps", "--format", "json", "worker").stdout.count('"healthy"') == 0:
        assert time.monotonic() < deadline, _compose("logs", "worker", check=False).stdout
        time.sleep(2)


@pytest.mark.compose
def test_stack_worker_runs_an_experiment_on_a_docker_target(stack: tuple[str, str]) -> None:
    """The compose worker starts the target's container through the host's engine, runs both variants
    and removes the container, as the README's mysql:5.7 vs mysql:8.0 path does with official images."""
    url, token = stack
    target = f"mysql-9.7-compose-t{ports.SESSION}"
    with httpx.Client(base_url=url, timeout=10, headers={"Authorization": f"Bearer {token}"}) as client:
        added = client.post(
            "/api/targets",
            json={
                "name": target,
                "flavor": "mysql",
                "provisioner": "docker",
                "settings": {"image": MYSQL_IMAGE, "port": ports.COMPOSE_TARGET, "pull": "never"},
            },
        )
        assert added.status_code == 201, added.text
        variants = [{"target": target}, {"target": target, "preset": "skip-log-bin"}]
        try:
            run = wait_final(client, submit(client, variants, iterations=3), timeout_s=400)
            assert run["status"] == "succeeded", run["error"]
            results = client.get(f"/api/runs/{run['id']}/results").json()
            assert [len(series["iterations"]) for series in results["series"]] == [3, 3]
            assert labelled_containers(target) == []
        finally:
            cleanup(target, templates=True)
