"""Datasets and replay through the API, the real worker and the CLI: a gzip dump uploaded streamed,
a plain SQL file replayed on MariaDB 10.11, MariaDB 11.8 and MySQL 9.7, the report read, exported
and gated by `upgradelab replay`'s exit status; the dataset is reused on the second replay."""

import gzip
import hashlib
import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from redis import Redis
from sqlalchemy import select

from tests.conftest import BIN, STATE, auth_headers
from tests.datasets.conftest import delete_dataset
from upgradelab.db import sync_session
from upgradelab.execution.locks import lock_key
from upgradelab.measurement.counters import columns as work_columns
from upgradelab.replay.schemas import DEFAULT_PASSES
from upgradelab.results.stats.verdicts import VERDICT_COLUMNS
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import provisioner_for

VARIANTS = ["mariadb-10.11", "mariadb-11.8", "mysql-9.7"]
QUERIES = """-- what the application runs
SELECT MD5(email) FROM customers WHERE id = 3;
SELECT CONCAT(region, '') AS r, COUNT(*), MAX(email) FROM customers GROUP BY r;
SELECT c.region, SUM(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.id
  WHERE c.created > '2024-01-01' GROUP BY c.region ORDER BY c.region;
SELECT COUNT(*) FROM orders WHERE amount > 900;
UPDATE orders SET note = 'x' WHERE id = 1;
"""


def _wait(client: httpx.Client, replay_id: int, timeout_s: float = 600) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        replay: dict[str, Any] = client.get(f"/api/replays/{replay_id}").json()
        if replay["status"] in ("succeeded", "failed"):
            return replay
        time.sleep(0.5)
    raise TimeoutError(f"replay {replay_id} did not end")


@pytest.fixture(scope="module")
def uploaded(client_module: httpx.Client, shop_dump: Path) -> Iterator[dict[str, Any]]:
    packed = gzip.compress(shop_dump.read_bytes())

    def blocks() -> Iterator[bytes]:  # a streamed body: the server never sees it whole
        for start in range(0, len(packed), 1 << 18):
            yield packed[start : start + (1 << 18)]

    created = client_module.put("/api/datasets/shop", content=blocks())
    assert created.status_code == 201, created.text
    dataset: dict[str, Any] = created.json()
    assert dataset["sha256"] == hashlib.sha256(packed).hexdigest()
    assert dataset["compression"] == "gzip" and dataset["size_bytes"] == len(packed)
    yield dataset
    delete_dataset(client_module, "shop")


@pytest.fixture(scope="module")
def client_module(api: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as http:
        yield http


def test_dataset_names_are_checked_and_unique(client_module: httpx.Client, uploaded: dict[str, Any]) -> None:
    again = client_module.put("/api/datasets/shop", content=b"SELECT 1;")
    assert again.status_code == 409 and "name" in again.text
    assert client_module.put("/api/datasets/Bad%20Name", content=b"x").status_code == 422
    assert client_module.put("/api/datasets/empty", content=b"").status_code == 422
    names = [d["name"] for d in client_module.get("/api/datasets").json()]  # other tests' too
    assert names.count("shop") == 1 and "Bad Name" not in names and "empty" not in names


def test_bad_replay_requests_name_the_field(client_module: httpx.Client, uploaded: dict[str, Any]) -> None:
    body = {"dataset": "shop", "queries": QUERIES, "variants": ["mariadb-10.11", "nope"]}
    refused = client_module.post("/api/replays", json=body)
    assert refused.status_code == 422 and "variants" in refused.text and "nope" in refused.text
    only_writes = {**body, "variants": ["mariadb-10.11"], "queries": "DELETE FROM orders;"}
    refused = client_module.post("/api/replays", json=only_writes)
    assert refused.status_code == 422 and "queries" in refused.text and "1 writes skipped" in refused.text
    assert client_module.post("/api/replays", json={**body, "dataset": "none"}).status_code == 404
    # issue 44: a writing replay's statement that would change its account's password (MariaDB lets
    # any account change its own: the lab refuses it before it runs; MySQL's accounts need the current one)
    writer = {**body, "variants": ["mariadb-10.11"], "allow_writes": True}
    for sql in (
        "SELECT 1;\nSET PASSWORD = 'chosen';",
        "SELECT 1;\nALTER USER CURRENT_USER() IDENTIFIED BY 'x';",
    ):
        refused = client_module.post("/api/replays", json={**writer, "queries": sql})
        assert refused.status_code == 422, refused.text
        assert "queries" in refused.text and "statement 2" in refused.text and "could change" in refused.text


def test_a_dump_a_server_refuses_fails_the_replay_naming_the_line(client_module: httpx.Client) -> None:
    dump = (
        b"CREATE TABLE t (id INT PRIMARY KEY);\nINSERT INTO t VALUES (1);\nINSERT INTO nowhere VALUES (2);\n"
    )
    assert client_module.put("/api/datasets/broken", content=dump).status_code == 201
    try:
        body = {"dataset": "broken", "queries": "SELECT * FROM t;", "variants": ["mysql-9.7"], "repeats": 1}
        created = client_module.post("/api/replays", json=body).json()
        assert created["rounds"] == 1  # `repeats`, the older name, sets the rounds
        assert "repeats" not in created  # accepted on input only (deprecated), never sent back
        replay = _wait(client_module, created["id"])
        assert replay["status"] == "failed" and replay["report"] is None
        assert "at line 3 of the dump: ERROR 1146" in replay["error"] and "nowhere" in replay["error"]
        # a failed replay leaves nothing behind: its target's lock is free, its server stopped
        redis = Redis.from_url(get_settings().redis_url)
        try:
            assert not redis.exists(lock_key("mysql-9.7"))
        finally:
            redis.close()
        with sync_session() as session:
            target = session.scalars(select(Target).where(Target.name == "mysql-9.7")).one()
        assert provisioner_for(target).pid() is None
    finally:
        delete_dataset(client_module, "broken")


def test_replay_report_through_the_worker_then_the_cli_gates_on_it(
    client_module: httpx.Client, uploaded: dict[str, Any], api: str
) -> None:
    body = {"dataset": "shop", "queries": QUERIES, "variants": VARIANTS, "rounds": 5, "max_rounds": 10}
    refused = client_module.post("/api/replays", json={**body, "max_rounds": 4})
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["body", "max_rounds"]
    created = client_module.post("/api/replays", json=body)
    assert created.status_code == 201, created.text
    assert created.json()["statements"] == 4 and created.json()["max_rounds"] == 10
    assert created.json()["schedule"] is None  # planned when it starts
    assert [s["kind"] for s in created.json()["skipped_writes"]] == ["update"]
    replay = _wait(client_module, created.json()["id"])
    assert replay["status"] == "succeeded", replay["error"]
    report = replay["report"]
    # the interleaved schedule is stored with the replay (seeded by its id) and in its report
    schedule = replay["schedule"]
    assert schedule["kind"] == "interleaved" and schedule["seed"] == replay["id"]
    # the planned 5 rounds, then 5 more for the fingerprints still undecided (if any: the extension)
    assert len(schedule["order"]) in (5, 10) and all(sorted(o) == [0, 1, 2] for o in schedule["order"])
    assert report["schedule"] == schedule and replay["rounds"] == report["planned_rounds"] == 5
    assert report["rounds"] == len(schedule["order"]) and report["max_rounds"] == replay["max_rounds"] == 10
    assert report["passes"] == replay["passes"] == schedule["block"] == DEFAULT_PASSES
    timed = [f for f in report["fingerprints"] if not f["fingerprint"].startswith("select md?")]
    for one in timed:  # each fingerprint's rounds: 5, or 10 when it was undecided after 5
        assert one["rounds"] in (5, 10) and all(
            r["rounds"] == one["rounds"] and r["method"] == "paired rounds" for r in one["ratios"].values()
        ), one
    # a break is decided by its outcome, not its time: a fingerprint that breaks on every variant
    # is not extended (one that breaks on MySQL only may be, for its time on MariaDB 11.8)
    by_outcome = [
        f for f in report["fingerprints"] if all(v["group"] == "breaks" for v in f["variants"].values())
    ]
    assert all(f["rounds"] == 5 for f in by_outcome), by_outcome
    assert (report["extension"] is not None) and ("sequential looks" in report["extension"])
    groups = {f["fingerprint"].split(" from ")[0]: f["group"] for f in report["fingerprints"]}
    assert groups["select md?(email)"] == "breaks"
    assert groups["select concat(region, ?) as r, count(*), max(email)"] == "breaks"
    # its plan changes between the MariaDB versions, whatever the rounds decide of its time; on MySQL
    # (plans not compared across flavors) they may decide it "slower", a group listed first
    join = next(f for f in report["fingerprints"] if f["fingerprint"].startswith("select c.region"))
    assert join["variants"]["mariadb-11.8"]["group"] in (
        "plan changed",
        "slower, plan changed",
        "faster, plan changed",
        "breaks",
    ), join
    assert groups["select c.region, sum(o.amount)"] in (
        "plan changed",
        "slower, plan changed",
        "faster, plan changed",
        "breaks",
        "slower",
        "slower: per-statement cost only",  # measurement/statement_cost.py
    )
    # the summary on top: one per variant against the baseline; statistics computed on every variant
    assert [s["variant"] for s in report["summary"]] == VARIANTS[1:]
    assert report["summary"][-1]["breaks"] >= 2 and report["summary"][-1]["new_errors"] >= 1
    assert all(v["statistics_at"] and v["analyzed"] for v in report["variants"])
    assert report["clock"] in ("server", "client") and "Benjamini-Hochberg" in report["fdr"]
    assert report["exit_bits"] & 1 and report["exit_bits"] & 4
    assert all(v["loaded"] is not None for v in report["variants"])  # first replay: loaded everywhere

    dataset = client_module.get("/api/datasets/shop").json()
    assert sorted(dataset["loads"]) == sorted(VARIANTS)
    tables = {t["name"]: t["rows"] for t in dataset["loads"]["mariadb-11.8"]["tables"]}
    assert tables["orders"] == 40000

    csv_export = client_module.get(f"/api/replays/{replay['id']}/export", params={"format": "csv"})
    assert csv_export.status_code == 200 and csv_export.text.startswith(
        "fingerprint_id,class_id,fingerprint,group,variant"
    )
    assert len(csv_export.text.strip().splitlines()) == 1 + 4 * len(VARIANTS)
    # the verdict in the one flat spelling (results/stats/verdicts.py columns), then the diffs
    header = csv_export.text.splitlines()[0].split(",")
    expected = ["median_s", *VERDICT_COLUMNS, "error_diffs", "result_diffs", "ordering_only"]
    expected += ["plan_changes", "timed_out", "refused", "partial", "causes"]
    start = header.index("median_s")
    assert header[start : start + len(expected)] == expected
    # then the per-statement cost's columns, the cause and the work counters' means (measurement/counters.py)
    assert {"cause_kind", "cause", *work_columns(None)} <= set(header[start + len(expected) :])
    assert "a function this version removed" in csv_export.text  # MD5 on MySQL 9.7: its cause named

    link = client_module.post("/api/shares", json={"kind": "replay", "replay_id": replay["id"]})
    assert link.status_code == 201, link.text
    shared = httpx.get(f"{api}/api/public/shares/{link.json()['token']}").json()  # no sign-in
    assert shared["kind"] == "replay" and shared["replay"]["report"]["exit_bits"] == report["exit_bits"]
    assert client_module.post("/api/shares", json={"kind": "replay"}).status_code == 422

    queries = STATE / "queries.sql"
    queries.write_text(QUERIES)
    variants = [arg for name in VARIANTS for arg in ("--variant", name)]
    command = [
        str(BIN / "upgradelab"),
        "replay",
        "--api",
        api,
        "--dataset",
        "shop",
        "--queries",
        str(queries),
    ]
    done = subprocess.run(
        [*command, *variants, "--repeats", "2", "--passes", "1", "--max-rounds", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    printed = json.loads(done.stdout)
    assert done.returncode == printed["exit_bits"] and done.returncode & 1 and done.returncode & 4, (
        done.stderr
    )
    assert all(v["loaded"] is None for v in printed["variants"])  # second replay: the dataset was reused
    assert printed["rounds"] == 2 and printed["passes"] == 1  # --repeats, the older name of --rounds
    assert printed["max_rounds"] is None and printed["extension"] is None  # --max-rounds 2: not extended
    verdicts = {r["verdict"] for f in printed["fingerprints"] for r in f["ratios"].values()}
    assert verdicts <= {"insufficient rounds", None}, verdicts  # 2 rounds: no time verdict
    assert re.search(r"^variant [123]/3 \S+: ", done.stderr, re.MULTILINE), done.stderr  # progress lines


def test_two_variants_of_one_target_and_an_aa_control_replay_on_three_instances_and_agree(
    client_module: httpx.Client, uploaded: dict[str, Any]
) -> None:
    """An A/A replay: the same target twice gets slots 0 and 1, started side by side, and `aa_control`
    adds a third instance of the baseline whose interval is each fingerprint's floor; nothing breaks.
    (One replay for both mechanics: each second instance of a target is a server start and a dump load.)"""
    variants = ["mariadb-10.11", "mariadb-10.11:default"]
    body = {"dataset": "shop", "queries": QUERIES, "variants": variants, "rounds": 5, "passes": 1}
    replay = _wait(
        client_module, client_module.post("/api/replays", json={**body, "aa_control": True}).json()["id"]
    )
    assert replay["status"] == "succeeded", replay["error"]
    assert [(v["name"], v["aa_control"]) for v in replay["variants"]] == [
        ("mariadb-10.11", False),
        ("mariadb-10.11:default", False),
        ("mariadb-10.11 (A/A)", True),
    ]
    report = replay["report"]
    assert [v["name"] for v in report["variants"]] == [*variants, "mariadb-10.11 (A/A)"]
    assert report["aa_control"] == "mariadb-10.11 (A/A)"
    assert [s["variant"] for s in report["summary"]] == ["mariadb-10.11:default", "mariadb-10.11 (A/A)"]
    timed = [f for f in report["fingerprints"] if f["ratios"]]
    assert timed and all(f["floor"] == f["ratios"]["mariadb-10.11 (A/A)"] for f in timed)
    breaks = [f["fingerprint"] for f in report["fingerprints"] if f["group"] == "breaks"]
    assert not report["exit_bits"] & 1 and report["groups"]["breaks"] == 0, breaks
