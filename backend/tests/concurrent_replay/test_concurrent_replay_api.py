"""A concurrent replay through the API and the real worker (issue 50's "done when"): a general log's
read-then-write sessions replayed together on MariaDB 10.11, 11.8 and an A/A control on 10.11, 5
interleaved trials each, every trial from a copy of the same loaded data: 11.8's 1020 is a break
decided over the trials (5 of 5, never on the reference) with the session and statement that hit
it, and its table ends with other data; exported, shared; a cancel mid-trial ends it with nothing
left running; the baseline's SET GLOBAL and SET SESSION stored and applied on every trial; hostile
requests (a target unknown or not disposable, a startup option off the allow-list, a SET SESSION of
the variable the statement bound sets, a log of 100,000 sessions, a statement changing a password)
are refused naming the field."""

import csv
import io
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from tests.conftest import auth_headers
from tests.datasets.conftest import delete_dataset
from tests.replay.sessions.test_session_driver_on_servers import READ_THEN_WRITE as DRIVER_LOG
from upgradelab.db import sync_session
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner, provisioner_for

DUMP = b"CREATE TABLE c (id INT PRIMARY KEY, v INT) ENGINE = InnoDB;\nINSERT INTO c VALUES (1, 0), (2, 0);\n"
# the driver test's read-then-write log, its sessions on the dataset's database
READ_THEN_WRITE = DRIVER_LOG.replace(" on shop using", " on crshop using")
SLEEPS = """\
Time\t\t    Id Command\tArgument
261206  8:00:00\t    21 Connect\tapp@localhost on crshop using TCP/IP
\t\t    21 Query\tSELECT SLEEP(120)
\t\t    21 Quit\t
"""
# the baseline's settings applied after each trial's start and on each session (neither moves the answer)
BASE_SETTINGS = {
    "set_global": {"innodb_lock_wait_timeout": "20"},
    "set_session": {"innodb_lock_wait_timeout": "15"},
}


@pytest.fixture(scope="module")
def http(api: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        created = client.put("/api/datasets/crshop", content=DUMP)
        assert created.status_code == 201, created.text
        yield client
        delete_dataset(client, "crshop")


def _wait(http: httpx.Client, job_id: int, until: tuple[str, ...], timeout_s: float = 600) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job: dict[str, Any] = http.get(f"/api/concurrent-replays/{job_id}").json()
        if job["status"] in until:
            return job
        time.sleep(0.5)
    raise TimeoutError(f"concurrent replay {job_id} not {until}")


def test_the_read_then_write_break_is_decided_over_trials_through_the_worker(http: httpx.Client) -> None:
    body = {
        "dataset": "crshop", "log": READ_THEN_WRITE, "format": "general", "rounds": 5, "speed": 2,
        "variants": [{"target": "mariadb-10.11", **BASE_SETTINGS}, {"target": "mariadb-11.8"}],
        "aa_control": True, "statement_timeout_s": 10,
    }  # fmt: skip
    created = http.post("/api/concurrent-replays", json=body)
    assert created.status_code == 201, created.text
    job = _wait(http, created.json()["id"], ("succeeded", "failed", "cancelled"))
    assert job["status"] == "succeeded", job["error"]
    assert [v["name"] for v in job["variants"]] == ["mariadb-10.11", "mariadb-11.8", "mariadb-10.11 (A/A)"]
    # the baseline's settings stored, its A/A's the same, applied on every trial (a refused one fails it)
    for variant in (job["variants"][0], job["variants"][2]):
        assert {k: variant[k] for k in BASE_SETTINGS} == BASE_SETTINGS
    assert job["sessions"] == 2 and job["cut"] == [] and len(job["trials"]) == 15
    assert all(t["copy_s"] > 0 and t["copy_bytes"] > 1 << 20 for t in job["trials"])  # each from a copy
    assert {(t["round"], t["variant"]) for t in job["trials"]} == {
        (r, v["name"]) for r in range(1, 6) for v in job["variants"]
    }
    report = job["report"]
    [error] = report["errors"]
    assert (error["variant"], error["code"], error["group"]) == ("mariadb-11.8", 1020, "breaks")
    assert error["per_trial"] == [1] * 5 and (error["reference_appears"], error["reference_trials"]) == (
        0,
        10,
    )
    assert (
        error["sample"]["thread_id"] == 11 and error["sample"]["sql"] == "UPDATE c SET v = v + 1 WHERE id = 1"
    )
    [table] = report["tables"]
    assert (table["variant"], table["table"], table["group"]) == ("mariadb-11.8", "crshop.c", "breaks")
    groups = {g["variant"]: g for g in report["groups"]}
    assert groups["mariadb-11.8"]["breaks"] == 2 and groups["mariadb-10.11 (A/A)"]["breaks"] == 0
    exported = http.get(f"/api/concurrent-replays/{job['id']}/export", params={"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert {(r["kind"], r["subject"], r["group"]) for r in rows} >= {
        ("error", "error 1020", "breaks"),
        ("table", "crshop.c", "breaks"),
    }
    shared = http.post(f"/api/concurrent-replays/{job['id']}/share").json()
    public = httpx.get(
        f"{str(http.base_url).rstrip('/')}/api/public/concurrent-replays/{shared['share_token']}"
    )
    assert public.status_code == 200 and public.json()["report"]["errors"][0]["code"] == 1020
    assert public.json()["share_token"] is None


def test_a_cancel_mid_trial_ends_it_with_nothing_left_running(http: httpx.Client) -> None:
    body = {"dataset": "crshop", "log": SLEEPS, "rounds": 5, "variants": [{"target": "mariadb-10.11"}]}
    created = http.post("/api/concurrent-replays", json=body).json()
    running = _wait(http, created["id"], ("running",), timeout_s=120)
    deadline = time.monotonic() + 300
    while (running.get("progress") or {}).get("step") != "trial":
        assert time.monotonic() < deadline, running
        time.sleep(0.3)
        running = http.get(f"/api/concurrent-replays/{created['id']}").json()
    asked = time.monotonic()
    assert http.post(f"/api/concurrent-replays/{created['id']}/cancel").status_code == 200
    ended = _wait(http, created["id"], ("cancelled", "failed", "succeeded"), timeout_s=60)
    assert ended["status"] == "cancelled" and time.monotonic() - asked < 30
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one()
    provisioner = provisioner_for(target)
    assert isinstance(provisioner, LocalProvisioner) and provisioner.pid() is None
    assert not provisioner.datadir.with_name("data.trials").exists()  # the dataset put back


def test_hostile_requests_are_refused_naming_the_field(http: httpx.Client) -> None:
    body = {"dataset": "crshop", "log": READ_THEN_WRITE, "variants": [{"target": "mariadb-10.11"}]}
    many = "Time\t\t    Id Command\tArgument\n" + "".join(
        f"261206  8:00:00\t{n:>6} Query\tSELECT {n}\n" for n in range(100_000)
    )
    refused = http.post("/api/concurrent-replays", json={**body, "log": many})
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["body", "log"]
    assert "max_sessions" in refused.text
    password = READ_THEN_WRITE.replace("SELECT v FROM c WHERE id = 1", "SET PASSWORD = 'chosen'")
    refused = http.post("/api/concurrent-replays", json={**body, "log": password})
    assert refused.status_code == 422 and "could change" in refused.text
    unknown = http.post("/api/concurrent-replays", json={**body, "variants": [{"target": "nope"}]})
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["loc"] == [
        "body",
        "variants",
        0,
        "target",
    ]
    option = http.post(
        "/api/concurrent-replays",
        json={**body, "variants": [{"target": "mariadb-10.11", "options": {"init-file": "/x"}}]},
    )
    assert option.status_code == 422 and option.json()["detail"][0]["loc"] == [
        "body",
        "variants",
        0,
        "options",
        "init-file",
    ]
    setting = http.post(
        "/api/concurrent-replays",
        json={**body, "variants": [{"target": "mariadb-10.11", "set_session": {"max_statement_time": "0"}}]},
    )  # the driver's statement bound sets it
    assert setting.status_code == 422 and setting.json()["detail"][0]["loc"] == [
        "body", "variants", 0, "set_session", "max_statement_time",
    ]  # fmt: skip
    assert "statement_timeout_s" in setting.text
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one()
        target.disposable = False
        session.commit()
    try:
        kept = http.post("/api/concurrent-replays", json=body)
        assert kept.status_code == 422 and "not disposable (the replay writes)" in kept.text
    finally:
        with sync_session() as session:
            session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one().disposable = True
            session.commit()
    assert http.post("/api/concurrent-replays", json={**body, "dataset": "none"}).status_code == 404
