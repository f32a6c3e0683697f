"""Starting a run and an attribution through the API, and waiting for them."""

import time
from typing import Any

import httpx

from tests.runs.helpers import wait_final

FINAL = ("succeeded", "failed", "cancelled")


def finished_run(
    client: httpx.Client,
    variants: list[dict[str, Any]],
    rounds: int,
    block: int,
    max_rounds: int | None = None,
) -> dict[str, Any]:
    """An interleaved insert-truncate run of `variants` (rounds added while a verdict is open, up to
    max_rounds), waited for; its JSON (asserts it succeeded)."""
    body = {
        "workload": "insert-truncate",
        "variants": variants,
        "rounds": rounds,
        "block": block,
        "max_rounds": max_rounds,
    }
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 201, created.text
    queued = client.post(f"/api/experiments/{created.json()['id']}/runs")
    assert queued.status_code == 201, queued.text
    run = wait_final(client, queued.json()["id"], timeout_s=600)
    assert run["status"] == "succeeded", run
    return run


def verdict_of(client: httpx.Client, run_id: int, variant: str) -> dict[str, Any]:
    """The run's verdict (VerdictRead JSON) of `variant` against the baseline (GET /api/compare)."""
    comparison = client.get("/api/compare", params={"runs": str(run_id), "series": "false"}).json()
    for row in comparison["rows"]:
        if row["variant"] == variant and row.get("ratio"):
            verdict: dict[str, Any] = row["ratio"]
            return verdict
    raise AssertionError(f"no verdict for {variant} in {comparison}")


def start_attribution(
    client: httpx.Client, run_id: int, variant: str, rounds: int, block: int, budget_runs: int
) -> httpx.Response:
    """POST /api/attributions for `variant` of run `run_id`, each step `rounds` x `block`, at most
    `budget_runs` step runs; the answer, unchecked (201, or 409 when the gap is not decided)."""
    body = {"run_id": run_id, "variant": variant, "rounds": rounds, "block": block}
    return client.post("/api/attributions", json={**body, "budget_runs": budget_runs})


def wait_attribution(client: httpx.Client, attribution_id: int, timeout_s: float = 1500) -> dict[str, Any]:
    """Poll until the attribution is final; its JSON."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found: dict[str, Any] = client.get(f"/api/attributions/{attribution_id}").json()
        if found["status"] in FINAL:
            return found
        time.sleep(1)
    raise TimeoutError(f"attribution {attribution_id} not final after {timeout_s} s")
