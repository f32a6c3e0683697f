"""Hostile replays through the CLI, the API and the real worker on MariaDB 10.11 (baseline), MariaDB
11.8 and MySQL 9.7: a stored function that writes is refused by the server and writes nothing; a
statement that never ends stops at a 2 s bound; one that times out on MySQL only shows as a timeout
of that variant (and a regression bit); the replay still succeeds. A replay is cancelled: a queued
one at once from the CLI, a running one mid-round from the API within seconds, with the statement
running killed, no server left, its locks free and what it measured kept, marked partial."""

import csv
import io
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from redis import Redis
from sqlalchemy import select
from typer.testing import CliRunner, Result

from tests.conftest import STATE, auth_headers
from tests.datasets.conftest import delete_dataset
from upgradelab.cli import app
from upgradelab.db import sync_session
from upgradelab.execution.locks import lock_key
from upgradelab.measurement.outcomes import REFUSED_TEXT
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import provisioner_for

VARIANTS = ["mariadb-10.11", "mariadb-11.8", "mysql-9.7"]
DUMP = b"""CREATE TABLE t (id INT PRIMARY KEY, note VARCHAR(20)) ENGINE=InnoDB;
INSERT INTO t VALUES (1, 'a'), (2, 'b');
DELIMITER ;;
CREATE FUNCTION f() RETURNS INT DETERMINISTIC MODIFIES SQL DATA
BEGIN
  INSERT INTO t VALUES (99, 'written');
  RETURN 1;
END ;;
DELIMITER ;
"""
OUTFILE = "/tmp/upgradelab-replay-outfile.txt"
# The parser sees a SELECT (the INTO hides in a version comment): the server must refuse it.
OUTFILE_SQL = f"SELECT note FROM t /*!50000 INTO OUTFILE '{OUTFILE}' */"
HOSTILE = f"""SELECT f();
SELECT COUNT(*) FROM t;
{OUTFILE_SQL};
SELECT SLEEP(60);
SELECT SLEEP(IF(VERSION() LIKE '%MariaDB%', 0, 60)) AS only_mysql;
"""
# Sleeps 0 s when captured and in the untimed warm-up pass (the first two runs on its connection),
# 100 s in every timed run after: the replay reaches round 1 at once and is cancelled inside it.
SLOW_IN_ROUNDS = "SELECT 1;\nSELECT SLEEP(IF((@runs := COALESCE(@runs, 0) + 1) > 2, 100, 0)) AS later;\n"


def _wait(client: httpx.Client, replay_id: int, until: Any, timeout_s: float = 600) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        replay: dict[str, Any] = client.get(f"/api/replays/{replay_id}").json()
        if until(replay):
            return replay
        time.sleep(0.2)
    raise TimeoutError(f"replay {replay_id}: {replay['status']}, {replay['progress']}")


def _final(replay: dict[str, Any]) -> bool:
    return replay["status"] in ("succeeded", "failed", "cancelled")


@pytest.fixture(scope="module")
def http(api: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as one:
        created = one.put("/api/datasets/hostile", content=DUMP)
        assert created.status_code == 201, created.text
        yield one
        delete_dataset(one, "hostile")  # waits until its copies are gone from the targets


def _cli_here(api: str, *args: str) -> Result:
    """`upgradelab replay ARGS` through the same Typer app in this process: the same requests to the
    API, without an interpreter start and the CLI's imports (about 3 s of CPU on this host). The
    installed entry point in its own process: tests/replay/test_replay_api.py."""
    return CliRunner().invoke(app, ["replay", *args, "--api", api])


def test_writes_are_refused_and_statements_stop_at_their_bound(http: httpx.Client, api: str) -> None:
    queries = STATE / "hostile-queries.sql"
    queries.write_text(HOSTILE)
    variants = [arg for name in VARIANTS for arg in ("--variant", name)]
    started = time.monotonic()
    done = _cli_here(
        api, "--dataset", "hostile", "--queries", str(queries), *variants,
        "--rounds", "2", "--passes", "1", "--statement-timeout", "2",
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert done.exit_code & 2 and not done.exit_code & 8, done.stderr  # a regression: timed out on MySQL
    replay_id = int(re.search(r"replay (\d+) queued", done.stderr)[1])  # type: ignore[index]
    # the summary names both kinds of outcome, per variant and statement
    assert f"mariadb-11.8: {REFUSED_TEXT}: SELECT f()" in done.stdout, done.stdout
    assert "mysql-9.7: timed out after 2 s: SELECT SLEEP(60)" in done.stdout
    assert "timed out: 1" in done.stdout and "slower (timed out): 1" in done.stdout
    assert "refused: 2" in done.stdout
    assert "mysql-9.7 (" in done.stdout and "timeouts 2" in done.stdout  # the summary per variant

    replay = http.get(f"/api/replays/{replay_id}").json()
    assert replay["status"] == "succeeded" and replay["statement_timeout_s"] == 2
    report = replay["report"]
    assert report["statement_timeout_s"] == 2 and not report["partial"]
    by_sql = {s["sql"]: (f, s) for f in report["fingerprints"] for s in f["statements"]}

    function, statement = by_sql["SELECT f()"]
    assert function["group"] == "refused"
    for outcome in statement["outcomes"].values():
        assert outcome["kind"] == "refused" and outcome["note"] == REFUSED_TEXT
        assert outcome["error_code"] == 1792
    assert not any(d["error"] or d["refused"] or d["breaks"] for d in statement["diffs"])
    # replayed after f(): the row f() would have written is not there, on any server
    _, counted = by_sql["SELECT COUNT(*) FROM t"]
    assert {o["row_count"] for o in counted["outcomes"].values()} == {1}
    assert {o["checksum_unordered"] for o in counted["outcomes"].values()} == {
        counted["outcomes"]["mariadb-10.11"]["checksum_unordered"]
    }

    # refused by the replay account's privileges (no FILE), before the server looks at the path
    _, statement = by_sql[OUTFILE_SQL]
    for outcome in statement["outcomes"].values():
        assert outcome["kind"] == "refused" and outcome["error_code"] in (1045, 1227), outcome
    assert not Path(OUTFILE).exists()

    sleep, statement = by_sql["SELECT SLEEP(60)"]
    assert sleep["group"] == "timed out"
    assert {o["note"] for o in statement["outcomes"].values()} == {"timed out after 2 s"}
    assert not any(d["timed_out"] for d in statement["diffs"])  # timed out everywhere: no difference

    only_mysql, statement = by_sql["SELECT SLEEP(IF(VERSION() LIKE '%MariaDB%', 0, 60)) AS only_mysql"]
    assert only_mysql["group"] == "slower (timed out)"  # on MySQL only: decided without rounds
    assert only_mysql["variants"]["mysql-9.7"]["group"] == "slower (timed out)"
    assert only_mysql["variants"]["mariadb-11.8"]["group"] != "slower (timed out)"
    assert statement["outcomes"]["mysql-9.7"]["kind"] == "timed out"
    assert statement["outcomes"]["mariadb-10.11"]["kind"] == "ran"
    assert {d["variant"]: d["timed_out"] for d in statement["diffs"]} == {
        "mariadb-11.8": False,
        "mysql-9.7": True,
    }
    # once timed out, a statement is not run again in the rounds: one bound per variant, not per run
    assert statement["timed_out_runs"] == {"mariadb-10.11": 0, "mariadb-11.8": 0, "mysql-9.7": 0}
    assert elapsed < 180, elapsed

    exported = http.get(f"/api/replays/{replay_id}/export", params={"format": "csv"}).text
    table = list(csv.DictReader(io.StringIO(exported)))
    mysql_sleep = [
        r for r in table if r["fingerprint_id"] == sleep["fingerprint_id"] and r["variant"] == "mysql-9.7"
    ]
    assert mysql_sleep, exported[:500]
    # timed out once, not refused, not a partial report, and a timeout has no known cause
    assert [mysql_sleep[0][k] for k in ("timed_out", "refused", "partial", "causes")] == [
        "1",
        "0",
        "False",
        "",
    ]
    assert mysql_sleep[0]["cause"] == ""  # timed out everywhere: no change, no cause
    fid = only_mysql["fingerprint_id"]
    only = [r for r in table if r["fingerprint_id"] == fid and r["variant"] == "mysql-9.7"]
    assert only and only[0]["cause"] == (
        "time only: work counters unavailable (timed out: no counters of its timed-out run)"
    )


def _no_server_and_no_lock(targets: list[str]) -> None:
    redis = Redis.from_url(get_settings().redis_url)
    try:
        assert not [t for t in targets if redis.exists(lock_key(t))]
    finally:
        redis.close()
    with sync_session() as session:
        rows = session.scalars(select(Target).where(Target.name.in_(targets))).all()
    assert {t.name: provisioner_for(t).pid() for t in rows} == dict.fromkeys(targets)


def test_a_replay_is_cancelled_queued_from_the_cli_and_running_from_the_api(
    http: httpx.Client, api: str
) -> None:
    targets = ["mariadb-10.11", "mysql-9.7"]
    body = {
        "dataset": "hostile", "queries": SLOW_IN_ROUNDS, "variants": targets, "rounds": 3, "passes": 1,
        "statement_timeout_s": 120,
    }  # fmt: skip
    running = http.post("/api/replays", json=body).json()["id"]
    _wait(http, running, lambda r: (r["progress"] or {}).get("phase", "").startswith("round 1"))

    # a second replay on the same targets waits, queued, behind the first: cancelled at once
    queued = http.post("/api/replays", json={**body, "variants": ["mysql-9.7"]}).json()["id"]
    done = _cli_here(api, "cancel", str(queued))
    assert done.exit_code == 0 and done.stdout.strip() == f"replay {queued}: cancelled", done.stderr
    assert http.get(f"/api/replays/{queued}").json()["status"] == "cancelled"

    time.sleep(1.0)  # well into the 100 s statement of round 1
    asked = time.monotonic()
    answer = http.post(f"/api/replays/{running}/cancel")
    assert answer.status_code == 200 and answer.json()["status"] == "running"
    ended = _wait(http, running, _final, timeout_s=30)
    took = time.monotonic() - asked
    assert ended["status"] == "cancelled" and ended["error"] is None and ended["progress"] is None
    print(f"cancel took {took:.1f} s")
    assert took < 10, took
    _no_server_and_no_lock(targets)

    report = ended["report"]  # what it measured: both statements captured on both, no round complete
    assert report["partial"] and report["rounds"] == 0 and report["statements"] == 2
    outcomes = [o for f in report["fingerprints"] for s in f["statements"] for o in s["outcomes"].values()]
    assert len(outcomes) == 4 and {o["kind"] for o in outcomes} == {"ran"}
    assert http.get(f"/api/replays/{running}/export", params={"format": "json"}).status_code == 200

    again = http.post(f"/api/replays/{running}/cancel")
    assert again.status_code == 409 and "already ended (cancelled)" in again.text
    refused = _cli_here(api, "cancel", str(running))
    assert refused.exit_code == 2 and "409" in refused.stderr
    assert http.post("/api/replays/999999/cancel").status_code == 404


def test_a_replay_is_cancelled_while_its_rounds_are_extended(http: httpx.Client) -> None:
    """One round leaves every time verdict open ("insufficient rounds"): the extension times the
    statements again, and a cancel then ends it within seconds with what every variant completed.
    The second statement sleeps a random 0-20 ms: its ratio scatters so widely that it stays undecided
    for hundreds of rounds, so the replay is still extending when the cancel comes (two statements
    that decide within a few rounds once ended the replay first, a coin the test flipped)."""
    targets = ["mariadb-10.11", "mysql-9.7"]
    body = {
        "dataset": "hostile", "queries": "SELECT COUNT(*) FROM t;\nSELECT SLEEP(RAND() * 0.02) AS jitter;\n",
        "variants": targets, "rounds": 1, "passes": 1, "max_rounds": 1000,
    }  # fmt: skip
    replay_id = http.post("/api/replays", json=body).json()["id"]
    extended = _wait(http, replay_id, lambda r: "(extended)" in (r["progress"] or {}).get("phase", ""))
    assert re.search(
        r"of at most 1000 \(extended\): [12] statements still undecided", extended["progress"]["phase"]
    )
    asked = time.monotonic()
    assert http.post(f"/api/replays/{replay_id}/cancel").status_code == 200
    ended = _wait(http, replay_id, _final, timeout_s=30)
    took = time.monotonic() - asked
    assert ended["status"] == "cancelled" and ended["error"] is None, ended
    assert took < 10, took
    _no_server_and_no_lock(targets)
    report = ended["report"]  # the planned round and the extension's rounds every variant completed
    assert report["partial"] and report["planned_rounds"] == 1 and report["max_rounds"] == 1000
    assert 1 <= report["rounds"] < 1000 and len(ended["schedule"]["order"]) >= report["rounds"]
    # A fingerprint the extension decided is timed no more (its rounds stop there); the jitter, still
    # undecided when the cancel came, was timed in every round every variant completed.
    rounds = [f["rounds"] for f in report["fingerprints"]]
    assert all(1 <= one <= report["rounds"] for one in rounds) and max(rounds) == report["rounds"], rounds


@pytest.mark.parametrize("value", [0.05, 3601])
def test_a_statement_timeout_out_of_range_is_refused_naming_the_field(
    http: httpx.Client, value: float
) -> None:
    body = {
        "dataset": "hostile",
        "queries": "SELECT 1;",
        "variants": ["mysql-9.7"],
        "statement_timeout_s": value,
    }
    refused = http.post("/api/replays", json=body)
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == [
        "body",
        "statement_timeout_s",
    ]


def test_a_replay_cancelled_while_it_loads_the_dump_ends_at_once(http: httpx.Client) -> None:
    """Cancelled while the dump loads: the servers are stopped then and there (the load ends with
    them), the replay ends cancelled without a report, nothing is left."""
    targets = ["mariadb-11.8", "mysql-9.7"]
    fresh = f"-- {time.time_ns()}: a new dump, loaded afresh (no kept datadir holds it)\n".encode()
    rows = b"".join(
        b"INSERT INTO big VALUES " + b",".join(b"(%d, 'x')" % (k * 1000 + i) for i in range(1000)) + b";\n"
        for k in range(1500)  # ~15 MB: uncancelled, the load alone takes well over 15 s here
    )
    dump = fresh + b"CREATE TABLE big (id INT PRIMARY KEY, pad CHAR(200));\n" + rows
    assert http.put("/api/datasets/loading", content=dump).status_code == 201
    try:
        body = {
            "dataset": "loading",
            "queries": "SELECT COUNT(*) FROM big;",
            "variants": targets,
            "rounds": 1,
        }
        replay_id = http.post("/api/replays", json=body).json()["id"]
        loading = _wait(http, replay_id, lambda r: (r["progress"] or {}).get("phase") == "loading the dump")
        assert loading["progress"]["bytes"] < len(dump)  # still loading
        asked = time.monotonic()
        assert http.post(f"/api/replays/{replay_id}/cancel").status_code == 200
        ended = _wait(http, replay_id, _final, timeout_s=60)
        took = time.monotonic() - asked
        print(f"cancel while loading took {took:.1f} s")
        assert ended["status"] == "cancelled" and ended["report"] is None and ended["error"] is None
        # the other server may still be initializing its datadir: that, not the load, takes a while
        assert took < 15, took
        _no_server_and_no_lock(targets)
    finally:
        delete_dataset(http, "loading")
