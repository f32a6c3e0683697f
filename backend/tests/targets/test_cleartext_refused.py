"""No password in cleartext unless asked for (issue 44, item 1): a fake server on a lab port answers
every login with an auth switch to mysql_clear_password (or dialog) and records every byte it
receives (tests/targets/cleartext_server.py); no client path of the lab sends it a password byte.

The paths: adding an existing target (the API's PyMySQL), a capture of one (the worker's, end to
end), a lab target's own connection (a check's and a replay's servers), the dump clients of each lab
binary (mariadb-dump 10.11 and 11.8, mysqldump 9.7: a capture's dump), the mysql / mariadb clients
that load a dataset (a replay's) and sysbench (charset-oltp). Each refusal names the target and the
plugin where the client lets the lab word it (PyMySQL); the command-line clients say the plugin.
"""

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from sqlalchemy import delete, select

from tests import ports
from tests.captures.team import wait
from tests.targets.cleartext_server import CleartextServer
from upgradelab.captures import dump
from upgradelab.datasets.load_client import DumpClient, client_launch
from upgradelab.db import sync_session
from upgradelab.settings import get_settings
from upgradelab.targets.client_auth import AuthPolicy
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.provisioners.base import Endpoint
from upgradelab.targets.sealed import seal
from upgradelab.workloads import sysbench

PASSWORD = "canary-Pw-44-never-sent"
TARGET = f"cleartext-t{ports.SESSION}"
LAB_TARGETS = ["mariadb-10.11", "mysql-9.7", "mariadb-11.8"]


@pytest.fixture(params=["mysql_clear_password", "dialog"])
def fake(request: pytest.FixtureRequest) -> Iterator[CleartextServer]:
    with CleartextServer(ports.CLEARTEXT, switch_to=request.param, linger_s=5) as server:
        yield server


def _no_password_reached(server: CleartextServer) -> None:
    time.sleep(0.3)  # the last bytes of a client that did send them
    assert server.connections >= 1, "the client never connected: nothing was tested"
    assert PASSWORD.encode() not in server.received()


def _existing_settings() -> dict[str, object]:
    return {
        "host": "127.0.0.1",
        "port": ports.CLEARTEXT,
        "user": "lab",
        "password": PASSWORD,
        "database": "lab",
    }


def test_adding_an_existing_target_sends_no_password(client: httpx.Client, fake: CleartextServer) -> None:
    body = {"name": TARGET, "flavor": "mariadb", "provisioner": "existing", "settings": _existing_settings()}
    answer = client.post("/api/targets", json=body)
    assert answer.status_code == 422, answer.text
    assert f"target {TARGET} asked for authentication plugin {fake.switch_to}" in answer.text
    _no_password_reached(fake)


@pytest.fixture
def team_target(database: None) -> Iterator[str]:
    """An existing target whose address a fake server answers now (the team's server is down)."""
    with sync_session() as session:
        session.add(
            # as targets/service.py stores it: the password sealed (a plaintext one is refused)
            Target(name=TARGET, flavor="mariadb", provisioner="existing", settings=seal(_existing_settings()))
        )
        session.commit()
    yield TARGET
    with sync_session() as session:
        session.execute(delete(Target).where(Target.name == TARGET))
        session.commit()


def test_a_capture_sends_no_password(client: httpx.Client, team_target: str, fake: CleartextServer) -> None:
    created = client.post("/api/captures", json={"target": team_target})
    assert created.status_code == 201, created.text
    capture = wait(client, created.json()["id"])
    assert capture["status"] == "failed"
    assert f"target {team_target} asked for authentication plugin {fake.switch_to}" in capture["error"]
    _no_password_reached(fake)


def _lab(name: str) -> LocalProvisioner:
    """The lab target `name` as a provisioner whose port the fake server holds (nothing started)."""
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == name)).one()
    settings = {**target.settings.stored(), "port": ports.CLEARTEXT}
    return LocalProvisioner(f"{name}-clear", target.flavor, settings, get_settings())


@pytest.mark.parametrize("name", LAB_TARGETS)
def test_a_lab_targets_own_connection_sends_no_password(name: str, fake: CleartextServer) -> None:
    """Whatever listens at a lab target's port while its server is down: a check's, a run's and a
    replay's connections to it (Endpoint.connect) answer no cleartext switch."""
    endpoint = replace(_lab(name).endpoint, password=PASSWORD)
    with pytest.raises(
        Exception, match=f"target {name}-clear asked for authentication plugin {fake.switch_to}"
    ):
        endpoint.connect(timeout_s=5)
    _no_password_reached(fake)


@pytest.mark.parametrize("name", LAB_TARGETS)
def test_the_dump_clients_send_no_password(name: str, fake: CleartextServer, tmp_path: Path) -> None:
    lab = _lab(name)
    client = dump.local_client(lab.endpoint.client, lab.flavor)
    endpoint = Endpoint("127.0.0.1", ports.CLEARTEXT, "lab", PASSWORD, auth=AuthPolicy(TARGET))
    out = tmp_path / "dump.sql"
    out.parent.chmod(0o777)  # the client runs as the mysql user
    with pytest.raises(dump.DumpFailed, match=fake.switch_to if fake.switch_to != "dialog" else "dialog"):
        dump.write_dump(client, endpoint, out, ["shop"], None, lambda: False, None, timeout_s=60)
    _no_password_reached(fake)


@pytest.mark.parametrize("name", LAB_TARGETS)
def test_the_mysql_and_mariadb_clients_send_no_password(name: str, fake: CleartextServer) -> None:
    """The client a dataset is loaded with (a replay's, a run's dataset)."""
    lab = _lab(name)
    endpoint = replace(lab.endpoint, password=PASSWORD)
    loader = DumpClient(lambda: client_launch(endpoint, lab.flavor, "shop"), lambda: False)
    loader.write(b"SELECT 1;\n")
    code = loader.end(sent=True)
    words = b"".join(loader.stderr).decode(errors="replace")
    assert code != 0 and fake.switch_to in words, words
    _no_password_reached(fake)


def test_sysbench_sends_no_password(fake: CleartextServer) -> None:
    endpoint = Endpoint("127.0.0.1", ports.CLEARTEXT, "lab", PASSWORD, auth=AuthPolicy("mysql-9.7"))
    args = sysbench.command("oltp_point_select", endpoint, "sbtest", "run", {"time": 1})
    with pytest.raises(sysbench.SysbenchError, match=fake.switch_to):
        sysbench.run(args, timeout_s=60, auth=endpoint.auth)
    _no_password_reached(fake)


def test_cleartext_is_answered_only_when_the_target_opts_in_over_verified_tls() -> None:
    opted_in = AuthPolicy("ldap-80", allow_cleartext=True)
    assert opted_in.refusal("mysql_clear_password", tls_verified=True) is None
    assert opted_in.refusal("dialog", tls_verified=True) is None
    refusal = opted_in.refusal("mysql_clear_password", tls_verified=False)
    assert refusal is not None and "allow_cleartext is set, but this connection is not TLS" in refusal
    assert AuthPolicy("team").refusal("mysql_clear_password", tls_verified=True) is not None
    only_native = AuthPolicy("team", plugins=("mysql_native_password",))
    assert only_native.refusal("mysql_native_password", tls_verified=False) is None
    assert "not on the target's allowlist" in str(only_native.refusal("client_ed25519", tls_verified=True))


def test_an_existing_target_opts_in_to_cleartext_only_with_its_ca(client: httpx.Client) -> None:
    settings = {**_existing_settings(), "allow_cleartext": True}
    body = {"name": TARGET, "flavor": "mariadb", "provisioner": "existing", "settings": settings}
    answer = client.post("/api/targets", json=body)
    assert answer.status_code == 422 and "allow_cleartext needs ssl_ca" in answer.text
    listed = {**_existing_settings(), "auth_plugins": ["mysql_native_password", "mysql_clear_password"]}
    answer = client.post("/api/targets", json={**body, "settings": listed})
    assert answer.status_code == 422 and "needs allow_cleartext" in answer.text
