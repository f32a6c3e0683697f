"""kill -9 of the pool process running a replay mid-rounds: the replay reaper ends it "worker lost",
stops both variants' servers and frees their locks; the next replay on the same targets runs."""

import os
import signal
import time
from typing import Any

import httpx
import pytest

from tests.faults.helpers import assert_nothing_left
from tests.faults.instance import FINAL, LabInstance, parent_of

pytestmark = pytest.mark.timeout(240)

VARIANTS = ["mariadb-10.11", "mysql-9.7"]
DUMP = b"CREATE TABLE t (id INT PRIMARY KEY);\nINSERT INTO t VALUES (1),(2),(3);\n"
QUERIES = "SELECT COUNT(*) FROM t;\nSELECT SLEEP(0.05);\n"


def _wait(client: httpx.Client, replay_id: int, done: Any, timeout_s: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    replay: dict[str, Any] = {}
    while time.monotonic() < deadline:
        replay = client.get(f"/api/replays/{replay_id}").json()
        if done(replay):
            return replay
        time.sleep(0.1)
    raise TimeoutError(
        f"replay {replay_id} after {timeout_s} s: {replay.get('status')} {replay.get('progress')}"
    )


def _in_rounds(replay: dict[str, Any]) -> bool:
    return str((replay["progress"] or {}).get("phase", "")).startswith("round ")


def test_killed_pool_process_replay_is_failed_its_servers_stopped_and_targets_freed(lab: LabInstance) -> None:
    with lab.client() as client:
        assert client.put("/api/datasets/tiny", content=DUMP).status_code == 201
        body = {"dataset": "tiny", "queries": QUERIES, "variants": VARIANTS, "rounds": 1000}
        replay_id = client.post("/api/replays", json=body).json()["id"]
        _wait(
            client, replay_id, lambda r: str((r["progress"] or {}).get("phase", "")).startswith("round "), 180
        )
        servers = lab.server_processes()
        assert len(servers) == 2, servers  # one instance per variant
        pool_process = parent_of(servers[0])
        assert pool_process is not None and all(parent_of(s) == pool_process for s in servers)
        os.kill(pool_process, signal.SIGKILL)
        killed_at = time.monotonic()

        replay = _wait(client, replay_id, lambda r: r["status"] in FINAL, timeout_s=30)
        assert time.monotonic() - killed_at < 30
        assert replay["status"] == "failed" and replay["error"] == "worker lost"
        assert_nothing_left(lab)

        again = client.post("/api/replays", json={**body, "rounds": 1}).json()["id"]
        assert _wait(client, again, lambda r: r["status"] in FINAL, timeout_s=120)["status"] == "succeeded"
        assert_nothing_left(lab)
