"""Interleaved rounds on the real servers through the API and the Celery worker: one instance per
variant, the stored schedule is the executed one, only the measured instance runs, a broken variant
drops out while the others finish, the memory check refuses a run that cannot fit."""

import json
import os
import signal
import time
from collections import defaultdict
from datetime import datetime
from typing import Any

import httpx
from redis import Redis
from sqlalchemy import select

from tests.runs.helpers import wait_final, wait_status
from tests.runs.instances import instance_pids, state
from upgradelab.db import sync_session, utcnow
from upgradelab.execution.schedule import plan
from upgradelab.results.store.models import Iteration
from upgradelab.settings import get_settings
from upgradelab.streaming.keys import stream_key

MYSQL, MARIADB = "mysql-9.7", "mariadb-10.11"


def _start(client: httpx.Client, variants: list[dict[str, Any]], **fields: Any) -> int:
    body = {"workload": "insert-truncate", "variants": variants, **fields}
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 201, created.text
    queued = client.post(f"/api/experiments/{created.json()['id']}/runs")
    assert queued.status_code == 201, queued.text
    run_id: int = queued.json()["id"]
    return run_id


def _iterations(run_id: int) -> list[Iteration]:
    with sync_session() as session:
        return list(
            session.scalars(select(Iteration).where(Iteration.run_id == run_id).order_by(Iteration.ended_at))
        )


Sample = tuple[datetime, dict[tuple[str, int], str | None]]


def _watch_states(client: httpx.Client, run_id: int) -> list[Sample]:
    """(when, process states of every instance of both targets), sampled while the run is running."""
    wait_status(client, run_id, {"running", "succeeded", "failed", "cancelled"}, timeout_s=300)
    samples: list[Sample] = []
    last_poll = 0.0
    while True:
        if time.monotonic() - last_poll > 0.3:
            last_poll = time.monotonic()
            if client.get(f"/api/runs/{run_id}").json()["status"] != "running":
                return samples
        pids = {(t, slot): pid for t in (MYSQL, MARIADB) for slot, pid in instance_pids(t).items()}
        samples.append((utcnow(), {key: state(pid) for key, pid in pids.items()}))
        time.sleep(0.02)


def test_interleaved_run_executes_its_stored_schedule_on_one_frozen_instance_per_variant(
    client: httpx.Client,
) -> None:
    variants = [{"target": MYSQL}, {"target": MYSQL, "preset": "redo-off"}, {"target": MARIADB}]
    # 3 rounds of 2-iteration blocks: the schedule, the blocks and the freezing need no more (24
    # iterations where 5 x 4 made 80 of the same insert-truncate)
    run_id = _start(client, variants, rounds=3, block=2, seed=7, aa_control=True)
    watched = _watch_states(client, run_id)
    run = wait_final(client, run_id)
    assert run["status"] == "succeeded", run["error"]
    # while blocks run: after the last iteration every instance is thawed to be stopped, all at once
    last_iteration = max(it.ended_at for it in _iterations(run_id))
    samples = [states for when, states in watched if when <= last_iteration]

    # one instance per variant, all running at once: three of mysql-9.7 (A/A included), one MariaDB
    assert max(len(s) for s in samples) == 4
    assert {key for s in samples for key in s} == {(MYSQL, 0), (MYSQL, 1), (MYSQL, 2), (MARIADB, 0)}
    # freezing: while one block runs the others are stopped (state T), and each resumes afterwards
    # (how many samples fit in the run depends on the host's speed: a quiet one gave 28 and failed ">= 30")
    assert len(samples) >= 20, len(samples)
    overlapping = [s for s in samples if sum(v not in ("T", None) for v in s.values()) > 1]
    assert len(overlapping) <= max(1, 0.05 * len(samples)), overlapping[:5]
    for key in {(MYSQL, 0), (MYSQL, 1), (MYSQL, 2), (MARIADB, 0)}:
        seen = {s[key] for s in samples if key in s}
        assert "T" in seen and seen - {"T", None}, (key, seen)

    # the schedule stored is the seed's, and it is the order the iterations ran in
    schedule = run["schedule"]
    assert schedule == plan("interleaved", 3, 2, 7, 4).as_json()
    rows = _iterations(run_id)
    assert len(rows) == 4 * 3 * 2
    executed: dict[int, list[int]] = defaultdict(list)
    per_block: dict[int, list[Iteration]] = defaultdict(list)
    for row in rows:
        per_block[row.block].append(row)
    assert sorted(per_block) == list(range(1, 13))
    for block in sorted(per_block):
        members = per_block[block]
        assert len(members) == 2 and len({(m.variant_index, m.round, m.position) for m in members}) == 1
        first = members[0]
        assert schedule["order"][first.round - 1][first.position] == first.variant_index
        executed[first.round].append(first.variant_index)
    assert [executed[r] for r in range(1, 4)] == schedule["order"]  # every variant once per round
    for index in range(4):
        assert [r.iteration for r in rows if r.variant_index == index] == list(range(1, 7))
    # the stream's iteration events carry their round, as stored
    redis = Redis.from_url(get_settings().redis_url)
    try:
        stored_entries: Any = redis.xrange(stream_key(run_id))
        entries = [json.loads(fields[b"data"]) for _, fields in stored_entries]
    finally:
        redis.close()
    streamed = {(e["variant_index"], e["iteration"]): e["round"] for e in entries if e["type"] == "iteration"}
    assert streamed == {(r.variant_index, r.iteration): r.round for r in rows}

    # context per variant, captured from its own instance: own port and datadir
    context = client.get(f"/api/runs/{run_id}/context").json()
    by_name = {v["name"]: v for v in context["variants"]}
    assert list(by_name) == [
        "mysql-9.7 default",
        "mysql-9.7 redo-off",
        "mariadb-10.11 default",
        "mysql-9.7 default (A/A)",
    ]
    assert [v["is_aa_control"] for v in context["variants"]] == [False, False, False, True]
    mysql = [by_name[n] for n in ("mysql-9.7 default", "mysql-9.7 redo-off", "mysql-9.7 default (A/A)")]
    assert len({v["variables"]["port"] for v in mysql}) == 3
    assert len({v["variables"]["datadir"] for v in mysql}) == 3
    for one in context["variants"]:
        assert one["status"] == "succeeded" and one["provisioner"] == "local"
        assert one["version"] and one["variables"]["version"] == one["version"]
        assert f"port={one['variables']['port']}" in one["option_file"]
    assert by_name["mariadb-10.11 default"]["version_comment"]
    assert by_name["mysql-9.7 redo-off"]["image_or_binary"].endswith("mysqld")
    host = context["context"]["host"]
    assert host["cores"] >= 1 and host["memory_bytes"] > 0 and host["kernel"]
    assert host["storage"]["mount_point"]


def test_a_variant_whose_server_is_killed_mid_run_fails_while_the_other_finishes(
    client: httpx.Client,
) -> None:
    run_id = _start(client, [{"target": MYSQL}, {"target": MARIADB}], rounds=10, block=3, seed=3)
    wait_status(client, run_id, {"running"}, timeout_s=300)
    while client.get(f"/api/runs/{run_id}").json()["iterations_done"] < 4:
        time.sleep(0.05)
    os.kill(instance_pids(MARIADB)[0], signal.SIGKILL)
    run = wait_final(client, run_id)
    assert run["status"] == "failed"
    assert "variant 'mariadb-10.11 default': server error (the server process is gone)" in run["error"]
    states = {v["name"]: v for v in run["variant_states"]}
    assert states["mariadb-10.11 default"]["status"] == "failed"
    assert states["mysql-9.7 default"]["status"] == "succeeded", states
    rows = _iterations(run_id)
    assert len([r for r in rows if r.variant_index == 0]) == 30  # the other variant did every round
    assert len([r for r in rows if r.variant_index == 1]) < 30


def test_a_run_that_does_not_fit_in_memory_is_refused_with_the_numbers(client: httpx.Client) -> None:
    huge = {"target": MYSQL, "name": "huge pool", "options": {"innodb_buffer_pool_size": "200G"}}
    run_id = _start(client, [{"target": MYSQL}, huge], rounds=5, block=1)
    run = wait_final(client, run_id)
    assert run["status"] == "failed"
    assert "needs 205728 MiB for 2 server instances" in run["error"]  # 128 + 204800 + 2 x 400
    assert "buffer pools 128 + 204800 MiB, plus 400 MiB per instance" in run["error"]
    assert "MemAvailable is" in run["error"]
    assert _iterations(run_id) == []


def test_sequential_runs_one_variant_after_the_other_in_one_round(client: httpx.Client) -> None:
    run_id = _start(client, [{"target": MARIADB}, {"target": MYSQL}], schedule="sequential", iterations=3)
    run = wait_final(client, run_id)
    assert run["status"] == "succeeded", run["error"]
    assert run["schedule"]["kind"] == "sequential" and run["schedule"]["order"] == [[0, 1]]
    rows = _iterations(run_id)
    assert [(r.variant_index, r.iteration, r.round, r.block) for r in rows] == [
        (0, 1, 1, 1), (0, 2, 1, 1), (0, 3, 1, 1), (1, 1, 1, 2), (1, 2, 1, 2), (1, 3, 1, 2),
    ]  # fmt: skip


def test_an_auto_extended_run_adds_rounds_while_a_verdict_is_open_up_to_its_budget(
    client: httpx.Client,
) -> None:
    refused = client.post(
        "/api/experiments",
        json={"workload": "insert-truncate", "variants": [{"target": MYSQL}], "rounds": 10, "max_rounds": 8},
    )
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["body", "max_rounds"]
    # 3 planned rounds are "insufficient rounds" (a verdict needs 5): still open after rounds 3 and 4,
    # then the budget (5 rounds) ends it
    run_id = _start(client, [{"target": MARIADB}, {"target": MYSQL}], rounds=3, block=1, seed=5, max_rounds=5)
    run = wait_final(client, run_id)
    assert run["status"] == "succeeded", run["error"]
    assert run["schedule"]["rounds"] == 5
    assert run["schedule"]["order"] == plan("interleaved", 5, 1, 5, 2).order  # the same seed stream
    assert run["iterations_total"] == run["iterations_done"] == 10
    rows = _iterations(run_id)
    assert sorted((r.variant_index, r.round) for r in rows) == [(v, r) for v in (0, 1) for r in range(1, 6)]
    assert [r.block for r in rows] == list(range(1, 11))
    summary = client.get("/api/compare", params={"runs": str(run_id), "series": "false"}).json()["rows"]
    assert summary[1]["rounds"] == 5
