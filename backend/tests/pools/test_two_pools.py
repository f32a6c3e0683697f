"""Two worker pools on one machine, as two bench hosts: the conftest's worker serves pool "local"
(mariadb-10.11 is there), a second worker with its own state directory serves pool "east"
(mysql-9.7 moved there), and pool "west" (mariadb-11.8) has no worker at all."""

import hashlib
import re
import subprocess
import time
from collections.abc import Iterator

import httpx
import pytest
from redis import Redis
from typer.testing import CliRunner, Result

from tests.conftest import STATE
from tests.datasets.conftest import delete_dataset
from tests.faults.helpers import submit, wait_final, wait_until
from tests.faults.instance import parent_of
from tests.pools.second_pool import (
    kill,
    lease_owner_pid,
    pools_of_targets,
    start_worker,
    wait_for_pool_worker,
)
from upgradelab.cli import app
from upgradelab.settings import get_settings

pytestmark = pytest.mark.timeout(600)
FINAL = ("succeeded", "failed", "cancelled")
LOCAL, EAST, WEST = "mariadb-10.11", "mysql-9.7", "mariadb-11.8"


@pytest.fixture(scope="module")
def east(api: str, worker: subprocess.Popen[bytes]) -> Iterator[subprocess.Popen[bytes]]:
    """The east pool's worker (state dir STATE/east), the targets in their pools; all undone after."""
    with pools_of_targets({EAST: ["east"], WEST: ["west"]}):
        process = start_worker("east", STATE / "east")
        wait_for_pool_worker(api, "east")
        yield process
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
    Redis.from_url(get_settings().redis_url).delete("west")  # the cancelled run's message


def _worker_of(run_id: int, client: httpx.Client) -> int | None:
    """The Celery main process whose pool process holds the run's lease."""
    wait_until(client, run_id, lambda run: run["iterations_done"] >= 1, timeout_s=120)
    pid = lease_owner_pid("run", run_id)
    return parent_of(pid) if pid else None


def test_pools_list_each_pool_with_its_worker_targets_and_facts(
    east: subprocess.Popen[bytes], client: httpx.Client
) -> None:
    listed = {pool["name"]: pool for pool in client.get("/api/pools").json()}
    assert {"local", "east", "west"} <= set(listed)
    assert listed["local"]["queue"] == "upgradelab" and listed["east"]["queue"] == "east"
    assert LOCAL in listed["local"]["targets"] and listed["east"]["targets"] == [EAST]
    [east_worker] = listed["east"]["workers"]
    assert east_worker["pid"] == east.pid and east_worker["name"].startswith("east@")
    assert east_worker["cpus"] >= 1 and east_worker["memory_mb"] > 0 and east_worker["version"]
    # its pool's queue, and its own (Celery's worker_direct, a sharded replay's shards) told apart
    assert east_worker["queues"] == ["east"] and east_worker["direct_queue"] == f"{east_worker['name']}.dq2"
    assert [w["pool"] for w in listed["local"]["workers"]] == ["local"]
    assert listed["west"]["workers"] == []


def test_a_run_spanning_two_pools_is_refused_with_the_reason(
    east: subprocess.Popen[bytes], client: httpx.Client
) -> None:
    body = {"workload": "insert-truncate", "iterations": 3, "variants": [{"target": LOCAL}, {"target": EAST}]}
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 201, created.text
    refused = client.post(f"/api/experiments/{created.json()['id']}/runs")
    assert refused.status_code == 409
    assert "different worker pools" in refused.text and f"{EAST}: east" in refused.text


def test_a_pool_without_a_live_worker_says_so_and_lists_the_run_waiting(
    east: subprocess.Popen[bytes], client: httpx.Client
) -> None:
    run_id = submit(client, WEST, iterations=3)
    where = client.get(f"/api/pools/jobs/run/{run_id}").json()
    assert where == {
        "kind": "run",
        "id": run_id,
        "pool": "west",
        "live_workers": 0,
        "message": "queued for pool west: no live worker",
    }
    west = {p["name"]: p for p in client.get("/api/pools").json()}["west"]
    assert {"kind": "run", "id": run_id} in west["waiting"] and west["queue_depth"] == 1
    time.sleep(3)  # no worker of another pool takes it
    assert client.get(f"/api/runs/{run_id}").json()["status"] == "queued"
    assert client.post(f"/api/runs/{run_id}/cancel").json()["status"] == "cancelled"
    assert client.get("/api/pools/jobs/run/999999").status_code == 404
    assert client.get("/api/pools/jobs/attribution/999999").status_code == 404  # every kind is looked up
    assert client.get("/api/pools/jobs/nothing/1").status_code == 422
    # A job of a pool with a live worker is asked of the local run in
    # test_each_run_goes_to_its_pools_worker_and_a_killed_pool_loses_only_its_run (one run fewer).


def _cli_in_process(api: str, *args: str) -> Result:
    """The CLI's parsing and printing in this process (typer's CliRunner): a CLI process spends
    ~2.8 CPU-s on start-up; its entry point is run as one in tests/cli/."""
    return CliRunner().invoke(app, [*args, "--api", api])


def test_the_cli_lists_the_pools_and_says_when_a_run_waits_without_a_worker(
    east: subprocess.Popen[bytes], client: httpx.Client, api: str
) -> None:
    listed = _cli_in_process(api, "pools")
    assert listed.exit_code == 0, listed.stderr
    lines = {line.split()[0]: line for line in listed.stdout.splitlines() if not line.startswith(" ")}
    assert "1 live worker(s)" in lines["east"] and "targets: mysql-9.7" in lines["east"]
    assert "NO LIVE WORKER" in lines["west"]

    # --timeout 2: the note is printed after the first poll (1 s); the run stays queued
    waited = _cli_in_process(api, "run", "--variant", WEST, "--iterations", "2", "--timeout", "2")
    assert "queued for pool west: no live worker" in waited.stderr, waited.stderr
    run_id = int(re.search(r"run (\d+) queued", waited.stderr)[1])  # type: ignore[index]
    assert client.post(f"/api/runs/{run_id}/cancel").json()["status"] == "cancelled"

    refused = _cli_in_process(api, "run", "--variant", LOCAL, "--variant", EAST, "--iterations", "2")
    assert refused.exit_code == 2 and "run refused:" in refused.stderr
    assert "different worker pools" in refused.stderr


DUMP = b"CREATE TABLE t (id INT PRIMARY KEY, v INT);\nINSERT INTO t VALUES (1, 10), (2, 20), (3, 30);\n"


def test_a_worker_without_the_dump_fetches_it_over_http_and_replays_on_it(
    east: subprocess.Popen[bytes], client: httpx.Client
) -> None:
    assert client.put("/api/datasets/pooled", content=DUMP).status_code == 201
    sha256 = hashlib.sha256(DUMP).hexdigest()
    assert not (STATE / "east" / "datasets").exists()  # the second host has no copy
    try:
        body = {"dataset": "pooled", "queries": "SELECT SUM(v) FROM t;", "variants": [EAST], "rounds": 2}
        created = client.post("/api/replays", json=body)
        assert created.status_code == 201, created.text
        assert client.get(f"/api/pools/jobs/replay/{created.json()['id']}").json()["pool"] == "east"
        deadline = time.monotonic() + 300
        while (replay := client.get(f"/api/replays/{created.json()['id']}").json())["status"] not in FINAL:
            assert time.monotonic() < deadline, replay["status"]
            time.sleep(0.5)
        assert replay["status"] == "succeeded", replay["error"]
        assert (STATE / "east" / "dataset-cache" / f"{sha256}.dump").read_bytes() == DUMP
        assert "fetching its dump" in (STATE / "east" / "worker.log").read_text(errors="replace")
    finally:
        delete_dataset(client, "pooled")


def test_each_run_goes_to_its_pools_worker_and_a_killed_pool_loses_only_its_run(
    east: subprocess.Popen[bytes], worker: subprocess.Popen[bytes], client: httpx.Client
) -> None:
    on_local = submit(client, LOCAL, iterations=150)
    on_east = submit(client, EAST, iterations=5000)
    local = client.get(f"/api/pools/jobs/run/{on_local}").json()
    assert local["pool"] == "local" and local["live_workers"] >= 1 and local["message"] is None
    assert _worker_of(on_local, client) == worker.pid
    assert _worker_of(on_east, client) == east.pid

    kill(east)
    lost = wait_final(client, on_east, timeout_s=60)  # the local worker's reaper ends it
    assert lost["status"] == "failed" and lost["error"] == "worker lost"
    assert client.get(f"/api/runs/{on_local}").json()["status"] in ("running", "succeeded")
    done = wait_final(client, on_local, timeout_s=300)
    assert done["status"] == "succeeded" and done["iterations_done"] == 150
