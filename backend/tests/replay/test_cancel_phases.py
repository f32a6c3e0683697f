"""A cancel ends a replay within 5 s while its server starts (issue 30, Deliver 5), through the real
API and worker on the lab's MariaDB 10.11: the server is held by SIGSTOP before it answers, so no pid
file names it yet and the runner's stop of the target's instances finds nothing; the replay's
Interrupt stops it through the provisioner's own handle. The replay ends `cancelled` without a report,
no server of the target is left and its lock is free.

The other phases of a replay have their cancel tests in test_replay_bounds_and_cancel.py (inside a
measured statement, while the dump loads, while its rounds are extended); analysing the tables
(ANALYZE TABLE) runs on the server the same stop ends while the dump loads."""

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import auth_headers
from tests.datasets.conftest import delete_dataset
from tests.execution.cancel_helpers import CANCEL_WITHIN_S, hold, nothing_left, settled, target_dir, template

pytestmark = pytest.mark.timeout(300)

TARGET = "mariadb-10.11"
DUMP = b"CREATE TABLE t (id INT PRIMARY KEY);\nINSERT INTO t VALUES (1), (2);\n"


@pytest.fixture(scope="module")
def http(api: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as one:
        created = one.put("/api/datasets/cancel-phases", content=DUMP)
        assert created.status_code == 201, created.text
        yield one
        delete_dataset(one, "cancel-phases")


def _final(client: httpx.Client, replay_id: int, timeout_s: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        replay: dict[str, Any] = client.get(f"/api/replays/{replay_id}").json()
        if replay["status"] in ("succeeded", "failed", "cancelled"):
            return replay
        time.sleep(0.1)
    raise TimeoutError(f"replay {replay_id}: {replay['status']}, {replay['progress']}")


def test_a_replay_is_cancelled_while_its_server_starts(http: httpx.Client) -> None:
    where = target_dir(TARGET)
    settled(TARGET, where)
    template(TARGET, made=True)  # so the held process is the replay's server start, not the template's
    body = {"dataset": "cancel-phases", "queries": "SELECT COUNT(*) FROM t;", "variants": [TARGET]}
    replay_id = http.post("/api/replays", json=body).json()["id"]
    stopped: list[int] = []
    try:
        stopped = hold(where, initializing=False)  # a server start, held before it answers SELECT 1
        assert stopped, "the replay's server never started"
        time.sleep(1.0)
        assert http.get(f"/api/replays/{replay_id}").json()["status"] == "running"
        asked = time.monotonic()
        assert http.post(f"/api/replays/{replay_id}/cancel").status_code == 200
        ended = _final(http, replay_id, timeout_s=60)
        took = time.monotonic() - asked
    finally:
        for pid in stopped:  # a failed test must not leave a stopped server behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    print(f"replay cancelled while its server starts: {took:.1f} s")
    assert ended["status"] == "cancelled" and ended["report"] is None and ended["error"] is None, ended
    assert took < CANCEL_WITHIN_S, took
    nothing_left(TARGET, where)
