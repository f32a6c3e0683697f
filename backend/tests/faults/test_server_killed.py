"""kill -9 of a target's server mid-run (issue 10)."""

import os
import signal
import time
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

pytestmark = pytest.mark.timeout(240)


def _kill_the_first_variants_server(lab: LabInstance, client: httpx.Client) -> tuple[int, dict[str, Any]]:
    """Two variants on MariaDB; kill -9 its server during the first. The run id and final JSON."""
    variants = [
        {"target": "mariadb-10.11", "name": "first"},
        {"target": "mariadb-10.11", "name": "second", "preset": "skip-log-bin"},
    ]
    body = {"workload": "insert-truncate", "iterations": 2000, "variants": variants}
    experiment = client.post("/api/experiments", json=body)
    assert experiment.status_code == 201, experiment.text
    run_id: int = client.post(f"/api/experiments/{experiment.json()['id']}/runs").json()["id"]
    wait_until(client, run_id, lambda run: run["iterations_done"] >= 5, timeout_s=120)
    [server] = lab.server_processes()
    os.kill(server, signal.SIGKILL)
    killed_at = time.monotonic()
    run = wait_final(client, run_id, timeout_s=30)
    assert time.monotonic() - killed_at < 30
    return run_id, run


def test_killed_server_fails_the_run_fast_with_its_results_kept(lab: LabInstance) -> None:
    with lab.client() as client:
        run_id, run = _kill_the_first_variants_server(lab, client)
    assert run["status"] == "failed"
    assert "variant 'first'" in run["error"] and "server error" in run["error"]
    assert assert_nothing_lost_or_duplicated(lab, run_id) >= 5
    assert_nothing_left(lab)


@pytest.mark.xfail(
    strict=True,
    reason="issue 12 (run loop, branch issue-12-loop): a failed variant drops out and the others go on; "
    "TODO(lead): remove this marker at that merge (and cut 'second' to a few iterations if slow)",
)
def test_killed_server_fails_only_its_variant(lab: LabInstance) -> None:
    with lab.client() as client:
        run_id, run = _kill_the_first_variants_server(lab, client)
    assert run["status"] == "failed" and "first" in run["error"]
    stored = lab.stored_iterations(run_id)
    assert {v for v, _, _ in stored} == {0, 1}, "the second variant never ran"
    assert_nothing_left(lab)
