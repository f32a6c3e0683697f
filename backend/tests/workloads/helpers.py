"""Starting a lab server for one template and running its pieces directly (no worker)."""

from typing import Any

import httpx

from tests.runs.helpers import wait_final
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.workloads import ServerSession, TargetFacts, Workload
from upgradelab.workloads.base import DatasetProgress


def facts(provisioner: LocalProvisioner) -> TargetFacts:
    """A lab target's facts (lab targets are disposable)."""
    return TargetFacts(provisioner.target_name, provisioner.flavor, "", True)


def start_for(
    provisioner: LocalProvisioner, workload: Workload, extra: list[str] | None = None
) -> tuple[ServerSession, list[DatasetProgress]]:
    """A fresh server with the template's options (+ extra lines); the session and its progress log."""
    options = [
        name if value is None else f"{name}={value}"
        for name, value in workload.server_options(facts(provisioner)).items()
    ]
    endpoint = provisioner.start(options + (extra or []))
    progress: list[DatasetProgress] = []
    return ServerSession(endpoint.connect(), endpoint, facts(provisioner), progress.append), progress


def run_experiment(client: httpx.Client, body: dict[str, Any], timeout_s: float = 300) -> dict[str, Any]:
    """POST the experiment, queue its run, wait until final; {"run", "groups", "results"} JSON."""
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 201, created.text
    queued = client.post(f"/api/experiments/{created.json()['id']}/runs")
    assert queued.status_code == 201, queued.text
    run = wait_final(client, queued.json()["id"], timeout_s)
    groups = client.get(f"/api/runs/{run['id']}/groups").json()
    results = client.get(f"/api/runs/{run['id']}/results").json()
    return {"run": run, "groups": groups, "results": results, "experiment": created.json()}
