"""kill -9 of a target's server mid-run (issue 10)."""

import os
import signal
from typing import Any

import httpx
import pytest

from tests.faults.helpers import (
    assert_nothing_left,
    assert_nothing_lost_or_duplicated,
    wait_final,
    wait_until,
)
from tests.faults.instance import LabInstance

pytestmark = pytest.mark.timeout(300)


# Per variant: the first is killed after 5, far from its end; the second runs them all.
ITERATIONS = 250


def _kill_the_first_variants_server(lab: LabInstance, client: httpx.Client) -> tuple[int, dict[str, Any]]:
    """Two variants on MariaDB, each on its own instance, run one after the other (sequential);
    kill -9 the first variant's server (slot 0) during its block. The run id and final JSON."""
    variants = [
        {"target": "mariadb-10.11", "name": "first"},
        {"target": "mariadb-10.11", "name": "second", "preset": "skip-log-bin"},
    ]
    body = {
        "workload": "insert-truncate",
        "iterations": ITERATIONS,
        "schedule": "sequential",
        "variants": variants,
    }
    experiment = client.post("/api/experiments", json=body)
    assert experiment.status_code == 201, experiment.text
    run_id: int = client.post(f"/api/experiments/{experiment.json()['id']}/runs").json()["id"]
    wait_until(client, run_id, lambda run: run["iterations_done"] >= 5, timeout_s=120)
    [first] = [pid for pid in lab.server_processes() if "/instances/0/" in lab.command_line(pid)]
    os.kill(first, signal.SIGKILL)
    # The kill is noticed (the variant fails, nothing hangs) within a minute; the second variant's
    # iterations then take what this host's load makes them take, which is not judged here.
    wait_until(client, run_id, lambda run: run["variant_states"][0]["status"] == "failed", timeout_s=60)
    run = wait_final(client, run_id, timeout_s=180)
    return run_id, run


def test_killed_server_fails_only_its_variant(lab: LabInstance) -> None:
    """The killed variant is failed with the server's error, its iterations kept; the other variant
    still runs all its iterations; the run ends failed naming the first; nothing lost or left."""
    with lab.client() as client:
        run_id, run = _kill_the_first_variants_server(lab, client)
        states = {v["name"]: v for v in client.get(f"/api/runs/{run_id}").json()["variant_states"]}
    assert run["status"] == "failed"
    assert "variant 'first'" in run["error"] and "server error" in run["error"]
    assert "second" not in run["error"]
    assert states["first"]["status"] == "failed" and states["second"]["status"] == "succeeded"
    stored = lab.stored_iterations(run_id)
    per_variant = {v: sum(1 for w, _, _ in stored if w == v) for v in (0, 1)}
    assert 5 <= per_variant[0] < ITERATIONS
    assert per_variant[1] == ITERATIONS, "the second variant did not run all its iterations"
    assert assert_nothing_lost_or_duplicated(lab, run_id) == sum(per_variant.values())
    assert_nothing_left(lab)
