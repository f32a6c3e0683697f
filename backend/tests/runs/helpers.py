"""Submitting runs through the API and waiting for them, for the lifecycle tests."""

import time
from typing import Any

import httpx

from upgradelab.execution.status import FINAL_STATUSES

FINAL: frozenset[str] = FINAL_STATUSES


def submit(
    client: httpx.Client, variants: list[dict[str, Any]], iterations: int, name: str | None = None
) -> int:
    """POST an insert-truncate experiment and queue a run; the run id."""
    body = {"workload": "insert-truncate", "iterations": iterations, "variants": variants, "name": name}
    return queue(client, body)


def queue(client: httpx.Client, body: dict[str, Any]) -> int:
    """POST the experiment `body` and queue a run of it; the run id (its status "queued")."""
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 201, created.text
    queued = client.post(f"/api/experiments/{created.json()['id']}/runs")
    assert queued.status_code == 201, queued.text
    assert queued.json()["status"] == "queued"
    run_id: int = queued.json()["id"]
    return run_id


def wait_final(client: httpx.Client, run_id: int, timeout_s: float = 300) -> dict[str, Any]:
    """Poll GET /api/runs/{id} until the run is final; its JSON."""
    return wait_status(client, run_id, FINAL, timeout_s)


def wait_status(
    client: httpx.Client, run_id: int, statuses: "set[str] | frozenset[str]", timeout_s: float = 120
) -> dict[str, Any]:
    """Poll until the run is in one of `statuses`; its JSON."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        run: dict[str, Any] = client.get(f"/api/runs/{run_id}").json()
        if run["status"] in statuses:
            return run
        # 0.25 s: a GET of a run costs the API ~7 ms of CPU, and ~200 tests wait on runs on a 2-core host
        time.sleep(0.25)
    raise TimeoutError(f"run {run_id} never reached {statuses}")
