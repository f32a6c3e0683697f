"""RESTART on an existing server that has a supervisor: MySQL 9.7 started under a small monitor (as
systemd or mysqld_safe would: MYSQLD_PARENT_PID set, exit code 16 = start again). The restart
capability is detected by a real RESTART, and the provisioner's restart() waits until it is back."""

import os
import subprocess
import threading
from collections.abc import Iterator

import httpx
import pytest

from tests import ports
from tests.conftest import lab_provisioner
from tests.runs.helpers import wait_final
from upgradelab.settings import get_settings
from upgradelab.targets.capabilities import detect
from upgradelab.targets.provisioners import ExistingProvisioner, LocalProvisioner

RESTART_EXIT = 16  # mysqld's exit code when RESTART asks its monitor to start it again


def provisioner_sql(provisioner: LocalProvisioner, sql: str) -> None:
    connection = provisioner.endpoint.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
    finally:
        connection.close()


class Supervisor:
    """Starts mysqld as its child and starts it again whenever it exits with RESTART_EXIT."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.starts = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _launch(self) -> subprocess.Popen[bytes]:
        self.starts += 1
        environment = {**os.environ, "MYSQLD_PARENT_PID": str(os.getpid())}
        return subprocess.Popen(
            self.command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def _watch(self) -> None:
        while self.process is not None and self.process.wait() == RESTART_EXIT:
            self.process = self._launch()

    def start(self) -> None:
        self.process = self._launch()
        self._thread.start()


@pytest.fixture(scope="module")
def supervised(database: None) -> Iterator[tuple[LocalProvisioner, Supervisor]]:
    """MySQL 9.7 under the Supervisor on ports.EXISTING_SUPERVISED; stopped afterwards."""
    provisioner = lab_provisioner("mysql-9.7", ports.EXISTING_SUPERVISED, suffix="supervised")
    provisioner.start([])  # a fresh datadir and my.cnf
    provisioner.stop()
    supervisor = Supervisor(
        provisioner._command(provisioner.cfg.mysqld, f"--defaults-file={provisioner._inner('my.cnf')}")
    )
    supervisor.start()
    try:
        provisioner._wait_ready()
        yield provisioner, supervisor
    finally:
        provisioner.stop()  # by its pid file: SIGTERM, a clean exit (0), so the supervisor ends too


def test_restart_capability_found_by_a_real_restart_and_restart_waits_for_it(
    supervised: tuple[LocalProvisioner, Supervisor],
) -> None:
    provisioner, supervisor = supervised
    endpoint = provisioner.endpoint
    settings = {
        "host": endpoint.host,
        "port": endpoint.port,
        "user": endpoint.user,
        "password": endpoint.password,
        "database": "mysql",
        "purpose": "workloads",
    }
    existing = ExistingProvisioner("supervised", "mysql", settings, get_settings())
    capabilities = detect(existing.endpoint, try_restart=True)
    restart = capabilities.get("restart")
    assert restart.available, restart.detail
    assert supervisor.starts == 2
    existing.restart()  # right after the first: Uptime may not be lower, the server went away
    assert supervisor.starts == 3
    existing.server_version()  # it answers again
    existing.stop()


def test_cold_run_through_the_worker_restarts_the_supervised_server(
    supervised: tuple[LocalProvisioner, Supervisor], client: httpx.Client
) -> None:
    provisioner, supervisor = supervised
    endpoint = provisioner.endpoint
    provisioner_sql(provisioner, "CREATE DATABASE IF NOT EXISTS labdb")
    name = f"existing-supervised-t{ports.SESSION}"
    settings = {"host": endpoint.host, "port": endpoint.port, "user": endpoint.user}
    settings |= {"password": endpoint.password, "database": "labdb", "purpose": "workloads"}
    body = {"name": name, "flavor": "mysql", "provisioner": "existing", "settings": settings}
    created = client.post("/api/targets", json={**body, "disposable": True, "restart_test": True})
    assert created.status_code == 201, created.text
    assert {c["name"]: c["available"] for c in created.json()["capabilities"]["checks"]}["restart"] is True
    starts = supervisor.starts
    experiment = {"workload": "insert-truncate", "iterations": 2, "policy": "cold_first"}
    experiment["variants"] = [{"target": name}]
    made = client.post("/api/experiments", json=experiment)
    assert made.status_code == 201, made.text
    queued = client.post(f"/api/experiments/{made.json()['id']}/runs").json()
    run = wait_final(client, queued["id"], timeout_s=180)
    assert run["status"] == "succeeded", run["error"]
    assert supervisor.starts == starts + 1  # cold_first: one RESTART before the first iteration
