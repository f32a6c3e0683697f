"""compose.yaml's second-pool profile, read by the real Compose v2 client: a worker of its own pool
(no -Q: its pool's queue), with the variables a second host sets, sharing the api's worker credential;
without the profile the stack is unchanged."""

import json
import os
import subprocess
from typing import Any

from upgradelab.settings import REPO_ROOT


def _config(*profile: str) -> dict[str, Any]:
    done = subprocess.run(
        ["docker", "compose", "-f", str(REPO_ROOT / "compose.yaml"), *profile, "config", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={
            **os.environ,
            "UPGRADELAB_SECOND_POOL": "east",
            "UPGRADELAB_WORKER_TOKEN": "shared-secret",
            "UPGRADELAB_DB_PASSWORD": "metadata-secret",
            "UPGRADELAB_DB_ROOT_PASSWORD": "metadata-root-secret",
        },
    )
    services: dict[str, Any] = json.loads(done.stdout)["services"]
    return services


def test_the_second_pool_profile_adds_a_worker_of_its_own_pool() -> None:
    assert "worker-2" not in _config()
    services = _config("--profile", "second-pool")
    second = services["worker-2"]
    assert second["environment"]["UPGRADELAB_POOL"] == "east"
    assert "-Q" not in second["command"] and "east@%h" in second["command"]
    for name in ("UPGRADELAB_DATABASE_URL", "UPGRADELAB_REDIS_URL", "UPGRADELAB_API_URL"):
        assert second["environment"][name] == services["worker"]["environment"][name]
    assert second["environment"]["UPGRADELAB_WORKER_TOKEN"] == "shared-secret"
    assert services["api"]["environment"]["UPGRADELAB_WORKER_TOKEN"] == "shared-secret"
    assert "UPGRADELAB_POOL" not in services["worker"]["environment"]  # the default pool, "local"
