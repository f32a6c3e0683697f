"""POST /api/targets refuses hostile settings naming the field; ids outside the database's integer range
answer 404 or 422 on every endpoint, never 500."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import delete

from tests import ports
from tests.conftest import TEST_PORTS
from upgradelab.db import sync_session
from upgradelab.targets.models import Target
from upgradelab.targets.validation import host_allowed

LOCAL = {"root": "/", "mysqld": "/usr/sbin/mariadbd", "install_db": "/usr/bin/mariadb-install-db"}
DOCKER = {"image": "upgradelab/mariadb:10.11", "pull": "never"}


@pytest.fixture
def created() -> Iterator[list[str]]:
    """Names of targets a test made; their rows are removed afterwards."""
    names: list[str] = []
    yield names
    with sync_session() as session:
        session.execute(delete(Target).where(Target.name.in_(names)))
        session.commit()


def _post(
    client: httpx.Client, provisioner: str, settings: dict[str, Any], name: str = "h3-t"
) -> httpx.Response:
    body = {"name": name, "flavor": "mariadb", "provisioner": provisioner, "settings": settings}
    return client.post("/api/targets", json=body)


@pytest.mark.parametrize(
    ("provisioner", "settings", "field", "reason"),
    [
        ("local", {"host": "127.0.0.1\ninit-file=/tmp/x.sql"}, "host", "control characters"),
        ("local", {"host": "10.0.0.1"}, "host", "UPGRADELAB_ALLOWED_HOSTS"),
        ("local", {"host": "0.0.0.0"}, "host", "not a loopback address"),
        ("local", {"mysqld": "/bin/sh"}, "mysqld", "does not answer as mysqld or mariadbd"),
        ("local", {"mysqld": "/usr/sbin/no-such-mysqld"}, "mysqld", "does not exist"),
        ("local", {"root": "../../"}, "root", "'..'"),
        ("local", {"mysqld": "/usr/sbin/../sbin/mariadbd"}, "mysqld", "'..'"),
        ("local", {"root": "{lab_dir.__class__}"}, "root", "braces"),
        ("local", {"base_options": {"plugin-load": "x.so"}}, "base_options", "plugin or code loading"),
        ("local", {"base_options": {"init_file": "/tmp/x"}}, "base_options", "init SQL"),
        ("local", {"port": TEST_PORTS["mysql-9.7"]}, "port", "already used by target mysql-9.7"),
        ("local", {"passwrd": "x"}, "passwrd", "Extra inputs are not permitted"),
        ("tarball", {"basedir": "/opt/../etc", "root": "/"}, "basedir", "'..'"),
        ("docker", {**DOCKER, "server_command": "sh -c 'mariadbd'"}, "server_command", "no shell"),
        ("docker", {**DOCKER, "server_command": "/bin/sh"}, "server_command", "no shell"),
        ("docker", {**DOCKER, "env": {"LD_PRELOAD": "/tmp/evil.so"}}, "env", "MYSQL_*, MARIADB_* or TZ"),
        ("docker", {**DOCKER, "env": {"PATH": "/tmp"}}, "env", "MYSQL_*, MARIADB_* or TZ"),
    ],
    # the same ids in every test session (pytest-xdist workers compare them): no port number
    ids=lambda one: str(one).replace(str(TEST_PORTS["mysql-9.7"]), "PORT")[:30],
)
def test_hostile_target_settings_are_refused_naming_the_field(
    client: httpx.Client, provisioner: str, settings: dict[str, Any], field: str, reason: str
) -> None:
    base = LOCAL if provisioner == "local" else {}
    refused = _post(client, provisioner, {**base, "port": ports.H3_TARGET, **settings})
    assert refused.status_code == 422, refused.text
    [error] = refused.json()["detail"]
    assert error["loc"][:3] == ["body", "settings", field], error
    assert reason in error["msg"]
    assert client.get("/api/targets").json() == [
        t for t in client.get("/api/targets").json() if t["name"] != "h3-t"
    ]


def test_errors_never_echo_a_password_and_cut_long_input(client: httpx.Client) -> None:
    secret = "Sup3r secret pass!"
    refused = _post(client, "local", {**LOCAL, "port": ports.H3_TARGET, "password": secret})
    assert refused.status_code == 422 and secret not in refused.text
    huge = _post(client, "local", {**LOCAL, "port": ports.H3_TARGET, "base_options": {"x" * 10_000: "1"}})
    assert huge.status_code == 422 and len(huge.text) < 1000


def test_a_good_local_target_is_accepted(client: httpx.Client, created: list[str]) -> None:
    created.append("h3-good")
    accepted = _post(client, "local", {**LOCAL, "port": ports.H3_TARGET}, name="h3-good")
    assert accepted.status_code == 201, accepted.text
    again = _post(client, "local", {**LOCAL, "port": ports.H3_TARGET}, name="h3-other")
    assert again.status_code == 422 and "already used by target h3-good" in again.text


@pytest.mark.parametrize(
    ("host", "allowed", "answer"),
    [
        ("127.0.0.1", "", True),
        ("127.0.0.2", "", True),
        ("::1", "", True),
        ("localhost", "", True),
        ("10.0.0.1", "", False),
        ("10.0.0.1", "10.0.0.0/8", True),
        ("10.0.0.1", "192.168.0.0/16, db.example", False),
        ("db.example", "192.168.0.0/16, db.example", True),
        ("db.example", "", False),
    ],
)
def test_hosts_are_loopback_unless_listed(host: str, allowed: str, answer: bool) -> None:
    assert host_allowed(host, allowed) is answer


TOO_BIG = [str(2**63), str(2**64), str(-(2**63) - 1), "1e23"]
ID_PATHS = [
    ("GET", "/api/experiments/{id}"),
    ("POST", "/api/experiments/{id}/runs"),
    ("GET", "/api/runs/{id}"),
    ("PATCH", "/api/runs/{id}"),
    ("POST", "/api/runs/{id}/rerun"),
    ("POST", "/api/runs/{id}/cancel"),
    ("GET", "/api/runs/{id}/results"),
    ("GET", "/api/runs/{id}/export"),
    ("GET", "/api/runs/{id}/statements"),
    ("GET", "/api/runs/{id}/groups"),
    ("GET", "/api/runs/{id}/probes"),
    ("GET", "/api/runs/{id}/events"),
    ("DELETE", "/api/shares/{id}"),
    ("GET", "/api/shares?run_id={id}"),
    ("GET", "/api/runs?offset={id}"),
    ("GET", "/api/compare?runs={id}"),
    ("GET", "/api/compare/export?runs={id}"),
]


@pytest.mark.parametrize("value", TOO_BIG)
@pytest.mark.parametrize(("method", "path"), ID_PATHS)
def test_ids_outside_the_integer_range_answer_404_or_422(
    client: httpx.Client, method: str, path: str, value: str
) -> None:
    body = {"name": "x"} if method == "PATCH" else None
    answer = client.request(method, path.format(id=value), json=body)
    assert answer.status_code in {404, 422}, answer.text


@pytest.mark.parametrize("value", [2**63, 2**64, -(2**63) - 1])
def test_ids_in_bodies_outside_the_integer_range_answer_404_or_422(client: httpx.Client, value: int) -> None:
    answer = client.post("/api/shares", json={"run_id": value})
    assert answer.status_code in {404, 422}, answer.text
