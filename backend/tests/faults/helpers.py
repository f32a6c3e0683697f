"""Submitting runs to a fault-test instance and checking what a fault left behind."""

import time
from typing import Any

import httpx

from tests.faults.instance import FINAL, LabInstance

# insert-truncate with its default 5 tables: INSERT + TRUNCATE per table, one sample each.
STATEMENTS_PER_ITERATION = 10


def submit(client: httpx.Client, target: str, iterations: int, **variant: Any) -> int:
    """Queue an insert-truncate run of one variant on `target`; its id."""
    variants = [{"target": target, **variant}]
    body = {"workload": "insert-truncate", "iterations": iterations, "variants": variants}
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 201, created.text
    queued = client.post(f"/api/experiments/{created.json()['id']}/runs")
    assert queued.status_code == 201, queued.text
    run_id: int = queued.json()["id"]
    return run_id


# Every 0.25 s, as tests/runs/helpers.py: a GET of a run costs the API ~7 ms of CPU and the test
# ~1.5 ms, and these waits span most of a fault test (issue 31); what they judge is in seconds.
POLL_S = 0.25


def wait_until(client: httpx.Client, run_id: int, done: Any, timeout_s: float) -> dict[str, Any]:
    """Poll GET /api/runs/{id} every POLL_S until done(run) holds; the run's JSON. TimeoutError names
    the last state."""
    deadline = time.monotonic() + timeout_s
    run: dict[str, Any] = {}
    while time.monotonic() < deadline:
        run = client.get(f"/api/runs/{run_id}").json()
        if done(run):
            return run
        time.sleep(POLL_S)
    state = f"{run.get('status')} ({run.get('iterations_done')} done)"
    raise TimeoutError(f"run {run_id} after {timeout_s} s: {state}")


def wait_final(client: httpx.Client, run_id: int, timeout_s: float) -> dict[str, Any]:
    return wait_until(client, run_id, lambda run: run["status"] in FINAL, timeout_s)


def assert_nothing_lost_or_duplicated(lab: LabInstance, run_id: int, killed: bool = False) -> int:
    """Every iteration the worker logged as stored is stored once, with all its statements. Every
    stored one is logged, except, when the worker was `killed`, the last batch: the iteration writer
    (results/store/ingest.py) commits up to 0.5 s of iterations at once and logs them after the
    commit, so a kill in between leaves a tail of stored iterations without their lines, never a hole
    before a logged one. The count stored."""
    stored = lab.stored_iterations(run_id)
    keys = {(v, i) for v, i, _ in stored}
    logged = lab.logged_iterations(run_id)
    assert len(logged) == len(set(logged)), "an iteration was logged as stored twice"
    assert set(logged) <= keys, f"lost: {sorted(set(logged) - keys)}"
    unlogged = sorted(keys - set(logged))
    if not killed:
        assert not unlogged, f"stored but never logged: {unlogged}"
    for variant, number in unlogged:
        last = max((i for v, i in logged if v == variant), default=0)
        assert number > last, f"stored, not logged, before a logged one: {unlogged}"
    assert all(n == STATEMENTS_PER_ITERATION for _, _, n in stored), f"duplicated samples: {stored}"
    for variant in {v for v, _ in keys}:
        numbers = sorted(i for v, i in keys if v == variant)
        assert numbers == list(range(1, len(numbers) + 1)), f"a gap in variant {variant}: {numbers}"
    return len(keys)


def assert_nothing_left(lab: LabInstance) -> None:
    """No target lock in Redis, no server process of the instance."""
    assert lab.lock_keys() == []
    assert lab.server_processes() == []
