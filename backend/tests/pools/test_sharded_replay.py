"""A replay spread over two hosts of one pool (replay/sharding.py), as two bench hosts would run it:
the conftest's worker and a second worker of pool "local" with its own state directory on this
machine. One replay, two shards (each on its own worker, every variant on each), one report over
every fingerprint; a cancel mid-round ends both shards and the replay within seconds, with one
partial report of what both measured; a worker
killed mid-round fails the replay, naming its shard, once its lease expired."""

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from tests.conftest import SERVER_DIR, STATE, auth_headers, kill_servers_under, servers_under
from tests.datasets.conftest import delete_dataset
from tests.pools.second_pool import kill, start_worker
from upgradelab.db import sync_session
from upgradelab.replay.models import ReplayShard
from upgradelab.settings import get_settings

pytestmark = pytest.mark.timeout(600)
FINAL = ("succeeded", "failed", "cancelled")
VARIANTS = ["mariadb-10.11", "mariadb-11.8"]
DUMP = b"CREATE TABLE t (id INT PRIMARY KEY, v INT);\nINSERT INTO t VALUES (1, 10), (2, 20), (3, 30);\n"
QUERIES = (
    "SELECT SUM(v) FROM t;\nSELECT v FROM t WHERE id = 2;\nSELECT COUNT(*) FROM t;\nSELECT MAX(id) FROM t;\n"
)
# Each sleeps 0 s when captured and in the warm-up pass (its first two runs on a connection), 100 s
# in every timed run after: two fingerprints, one per shard, each held inside its first round.
SLOW = "".join(
    f"SELECT SLEEP(IF((@{name} := COALESCE(@{name}, 0) + 1) > 2, 100, 0)) AS {name};\n"
    for name in ("one", "two")
)


def _live(client: httpx.Client, pool: str) -> list[dict[str, Any]]:
    listed = {p["name"]: p for p in client.get("/api/pools").json()}
    return list(listed.get(pool, {}).get("workers", []))


@pytest.fixture(scope="module")
def second(api: str, worker: subprocess.Popen[bytes]) -> Iterator[subprocess.Popen[bytes]]:
    """A second worker of pool "local" (state dir STATE/shard-host, servers under SERVER_DIR/shard-host)
    and the dataset; both gone after."""
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        # its own server directory too, as another machine has: its servers' admin passwords are
        # its state directory's (targets/provisioners/local.py)
        process = start_worker(
            "local", STATE / "shard-host", {"UPGRADELAB_SERVER_DIR": f"{SERVER_DIR}/shard-host"}
        )
        try:
            deadline = time.monotonic() + 30
            while len(_live(client, "local")) < 2:
                assert time.monotonic() < deadline, _live(client, "local")
                time.sleep(0.3)
            assert client.put("/api/datasets/sharded", content=DUMP).status_code == 201
            yield process
            delete_dataset(client, "sharded")
        finally:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=60)


def _replay(client: httpx.Client, queries: str, **more: Any) -> int:
    body = {"dataset": "sharded", "queries": queries, "variants": VARIANTS, "rounds": 5, "max_rounds": 5,
            "shards": 2, **more}  # fmt: skip
    created = client.post("/api/replays", json=body)
    assert created.status_code == 201, created.text
    assert created.json()["shards"] == 2
    return int(created.json()["id"])


def _wait(client: httpx.Client, replay_id: int, until: Any, timeout_s: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while not until(replay := client.get(f"/api/replays/{replay_id}").json()):
        assert time.monotonic() < deadline, (replay["status"], replay["progress"], replay["error"])
        time.sleep(0.3)
    return dict(replay)


def _shards(replay_id: int) -> list[ReplayShard]:
    with sync_session() as session:
        rows = list(
            session.scalars(
                select(ReplayShard).where(ReplayShard.replay_id == replay_id).order_by(ReplayShard.shard)
            )
        )
        for row in rows:
            session.expunge(row)
    return rows


def _held_in_round_one(client: httpx.Client) -> int:
    """A replay of SLOW over two shards, once both are inside their first round; its id."""
    replay_id = _replay(client, SLOW)

    def both_in_rounds(replay: dict[str, Any]) -> bool:
        assert replay["status"] not in FINAL, replay["error"]
        rows = _shards(replay_id)
        return len(rows) == 2 and all(
            "round 1 of 5" in (r.progress.phase if r.progress else "") for r in rows
        )

    _wait(client, replay_id, both_in_rounds, timeout_s=240)
    return replay_id


def test_a_replay_over_two_workers_is_one_job_with_one_report_over_every_fingerprint(
    second: subprocess.Popen[bytes], client: httpx.Client
) -> None:
    replay_id = _replay(client, QUERIES)
    seen: set[str] = set()

    def done(replay: dict[str, Any]) -> bool:
        if replay["progress"]:
            seen.add(replay["progress"]["phase"])
        return replay["status"] in FINAL

    replay = _wait(client, replay_id, done)
    assert replay["status"] == "succeeded", replay["error"]
    rows = _shards(replay_id)
    assert [r.status for r in rows] == ["succeeded", "succeeded"]
    assert len({r.worker for r in rows}) == 2  # one shard per worker
    assert sorted(i for r in rows for i in r.statements) == [0, 1, 2, 3] and all(r.statements for r in rows)
    assert [r.first_slot for r in rows] == [0, 2]  # one machine: the second shard's instances apart
    report = client.get(f"/api/replays/{replay_id}").json()["report"]
    assert len(report["fingerprints"]) == 4 and report["statements"] == 4
    assert all(set(f["median_s"]) == set(VARIANTS) for f in report["fingerprints"])
    # one Benjamini-Hochberg over both shards' fingerprints, one summary line per variant
    assert report["fdr"].startswith("Benjamini-Hochberg across the replay's 4 time comparisons"), report[
        "fdr"
    ]
    assert sum(report["groups"].values()) == 4 and len(report["summary"]) == 1
    # the per-statement cost: a line per variant and host, each host's own DO 0, the host named
    costs = report["per_statement_cost"]
    assert sorted(c["host"] for c in costs) == sorted(r.worker for r in rows), costs
    assert all(c["variant"] == VARIANTS[1] and c["text"].startswith(f"on {c['host']}: ") for c in costs)
    # where each fingerprint ran, each shard's rounds, the schedule every shard's is the start of
    hosts = {r.worker: len(r.statements) for r in rows}
    assert sorted(f["host"] for f in report["fingerprints"]) == sorted(
        h for h, n in hosts.items() for _ in range(n)
    )
    assert report["sharding"].startswith("spread over 2 hosts") and report["schedule"]["rounds"] == 5
    assert any(re.search(r"\d+ of 10 rounds on 2 hosts", phase) for phase in seen), seen
    # whichever took the replay's own task, the other ran the second shard
    assert {r.worker.split("@")[0] for r in rows} == {"celery", "local"}, [r.worker for r in rows]


def test_a_cancel_mid_round_ends_both_shards_and_the_replay_within_seconds(
    second: subprocess.Popen[bytes], client: httpx.Client
) -> None:
    replay_id = _held_in_round_one(client)
    asked = time.monotonic()
    assert client.post(f"/api/replays/{replay_id}/cancel").status_code == 200
    replay = _wait(client, replay_id, lambda r: r["status"] in FINAL, timeout_s=60)
    assert replay["status"] == "cancelled", replay["error"]
    deadline = time.monotonic() + 30
    rows = _shards(replay_id)
    while any(r.status not in FINAL for r in rows):
        assert time.monotonic() < deadline, [(r.status, r.progress) for r in rows]
        time.sleep(0.3)
        rows = _shards(replay_id)
    assert [r.status for r in rows] == ["cancelled", "cancelled"]
    assert time.monotonic() - asked < 20, time.monotonic() - asked
    # what both shards measured, one partial report: both fingerprints captured, no round finished
    report = client.get(f"/api/replays/{replay_id}").json()["report"]
    assert report["partial"] and len(report["fingerprints"]) == 2, report


def test_a_killed_worker_fails_the_replay_within_seconds_of_its_lease_whichever_shard_it_ran(
    second: subprocess.Popen[bytes], client: httpx.Client
) -> None:
    """Last in the module: it kills the second worker (the host gone) mid-round. Which of the two
    took the replay's own task is Celery's choice: when the second ran the other shard, its lease
    expires (job_lease_ttl_s) and the replay's worker fails the replay naming that shard; when it ran
    the replay's own task (and shard 1), the conftest worker's reaper fails the replay, "worker lost",
    and the replay's end ends the shard still running there. Either way within seconds of the lease."""
    replay_id = _held_in_round_one(client)
    coordinator, other = _shards(replay_id)
    live_host = _servers_of_live_host()
    assert live_host  # its shard's instances (a SLEEP running in one)
    kill(second)
    killed = time.monotonic()
    try:
        replay = _wait(client, replay_id, lambda r: r["status"] in FINAL, timeout_s=90)
        assert replay["status"] == "failed"
        if other.worker.startswith("local@"):  # the second worker ran shard 2
            assert replay["error"] == f"shard 2 of 2 (worker {other.worker}): worker lost (its lease expired)"
        else:  # it ran the replay's own task
            assert coordinator.worker.startswith("local@") and replay["error"] == "worker lost"
        # the lease, then the coordinator's watch (0.5 s) or the reaper's pass (5 s), which write the
        # final status first and stop the live host's servers (a SLEEP running in one) after: that
        # stop took 50 s under the gate's load when it came first
        ttl = get_settings().job_lease_ttl_s
        assert time.monotonic() - killed < ttl + 15, time.monotonic() - killed
        assert [r.status for r in _shards(replay_id)] == ["failed", "failed"]  # with the replay
        deadline = time.monotonic() + 60  # then nothing left running on the live host
        while left := [pid for pid in live_host if Path(f"/proc/{pid}").exists()]:
            assert time.monotonic() < deadline, left
            time.sleep(0.3)
    finally:
        kill_servers_under(f"{SERVER_DIR}/shard-host/")  # the gone host's servers go with it


def _servers_of_live_host() -> list[int]:
    """The pids of the servers of the conftest worker's server directory (not the second worker's)."""
    gone_host = set(servers_under(f"{SERVER_DIR}/shard-host/"))
    return [pid for pid in servers_under(f"{SERVER_DIR}/") if pid not in gone_host]
