"""GET /api/replays/{id}/events and /api/attributions/{id}/events: a replay's and an attribution's
progress arrives on their streams in order, ending with the final status; who may watch.

Both jobs run on the real worker and are cancelled once they have shown their first steps (cheap: a
replay of three statements on one MariaDB 10.11, an attribution's first step run on MySQL 9.7)."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from tests.attribution.helpers import wait_attribution
from tests.results.synthetic import SyntheticVariant, insert_run, resolved
from tests.streaming.sse import Event, events
from upgradelab.db import sync_session
from upgradelab.results.store.summary import store_summary_in
from upgradelab.runs.models import Run, RunVariant

FINAL = ("succeeded", "failed", "cancelled")
# 0 s when captured and in the warm-up pass (its first two runs on the connection), 100 s in rounds:
# the replay stays in round 1 until it is cancelled (tests/browser/test_datasets_and_replay.py)
SLEEPER = "SELECT SLEEP(IF((@runs := COALESCE(@runs, 0) + 1) > 2, 100, 0))"
DUMP = b"CREATE TABLE t (id INT PRIMARY KEY);\nINSERT INTO t VALUES (1), (2);\n"


def _watch(client: httpx.Client, path: str, cancel_when: Any) -> list[Event]:
    """Every event of `path` until the stream ends; POST <job>/cancel once `cancel_when(event)`."""
    received: list[Event] = []
    job = path.removesuffix("/events")
    with client.stream("GET", path, timeout=httpx.Timeout(30, read=60)) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        cancelled = False
        for one in events(response):
            received.append(one)
            if not cancelled and cancel_when(one):
                assert client.post(f"{job}/cancel").status_code == 200
                cancelled = True
    return received


def _entry_order(received: list[Event]) -> list[tuple[int, int]]:
    return [tuple(map(int, e.id.split("-"))) for e in received if e.id]  # type: ignore[misc]


@pytest.fixture
def tiny_dataset(client: httpx.Client) -> Iterator[str]:
    assert client.put("/api/datasets/stream-tiny", content=DUMP).status_code == 201
    yield "stream-tiny"
    client.delete("/api/datasets/stream-tiny")


def test_a_replays_phases_arrive_in_order_and_its_stream_ends_with_its_final_status(
    client: httpx.Client, tiny_dataset: str
) -> None:
    queries = f"SELECT id FROM t;\n{SLEEPER};\n"
    body = {"dataset": tiny_dataset, "queries": queries, "variants": ["mariadb-10.11"], "rounds": 2,
            "passes": 1, "statement_timeout_s": 120}  # fmt: skip
    replay_id = client.post("/api/replays", json=body).json()["id"]

    def in_round_one(event: Event) -> bool:
        return event.event == "status" and (event.json().get("progress") or {}).get("phase") == "round 1 of 2"

    received = _watch(client, f"/api/replays/{replay_id}/events", in_round_one)

    # the live viewer: its snapshot first, entries each once in order, the final status last
    assert received[0].event == "snapshot" and received[0].json()["status"] in ("queued", "running")
    assert all(e.json()["status"] == "running" for e in received[1:-1] if e.event == "status")
    assert received[-1].event == "status" and received[-1].json()["status"] == "cancelled"
    order = _entry_order(received)
    assert order == sorted(order) and len(set(order)) == len(order), "entry ids, each once, in order"
    assert client.get(f"/api/replays/{replay_id}").json()["status"] == "cancelled"

    # the whole stream from its first entry (resumed after 0-0): the live viewer may have connected
    # after the worker's first steps (the schedule is stored before the server starts), this one not
    with client.stream("GET", f"/api/replays/{replay_id}/events?last_event_id=0-0", timeout=30) as response:
        history = list(events(response))
    steps = [e.json()["progress"] for e in history if e.event == "status" and e.json().get("progress")]
    phases = [step["phase"] for step in steps]
    assert phases[0] == "starting the server"
    assert phases.index("capturing outcomes of 2 statements") < phases.index("round 1 of 2")
    kinds = [e.event for e in history]
    assert kinds.index("schedule") < kinds.index("report"), "the rounds planned, then the partial report"
    planned = {
        "type": "schedule",
        "rounds": 2,
        "max_rounds": client.get(f"/api/replays/{replay_id}").json()["max_rounds"],
    }
    assert history[kinds.index("schedule")].json() == planned
    assert history[kinds.index("report")].json()["partial"] is True
    assert history[-1].event == "status" and history[-1].json()["status"] == "cancelled"
    assert _entry_order(history) == sorted(_entry_order(history))
    live = [e for e in received if e.event != "snapshot"]  # the snapshot's id is its cursor
    assert set(_entry_order(live)) <= set(_entry_order(history)), "the live viewer saw the same entries"

    # a viewer coming later gets the final state as its snapshot, and the stream ends there
    with client.stream("GET", f"/api/replays/{replay_id}/events", timeout=30) as response:
        late = list(events(response))
    assert [e.event for e in late] == ["snapshot"] and late[0].json()["status"] == "cancelled"


def _decided_gap_run() -> int:
    """A succeeded synthetic run (no server) where "tuned" (max-connections 300) is 1.4x the baseline:
    a decided gap an attribution may explain, with one candidate setting."""
    variants = [resolved("default"), resolved("tuned", {"max-connections": "300"})]
    with sync_session() as session:
        run_id = insert_run(
            session, [SyntheticVariant("default", shift=1.0), SyntheticVariant("tuned", shift=1.4)],
            rounds=7, block=2, seed=4, own_noise=0.01,
        )  # fmt: skip
        run = session.get(Run, run_id)
        assert run is not None
        run.experiment.variants = variants
        for row in session.scalars(select(RunVariant).where(RunVariant.run_id == run_id)):
            value = "300" if row.name == "tuned" else "151"
            row.variables = {**(row.variables or {}), "max_connections": value}
        session.commit()
        store_summary_in(session, run_id)
    return run_id


def test_an_attributions_steps_arrive_in_order_and_its_stream_ends_with_its_final_status(
    client: httpx.Client,
) -> None:
    body = {"run_id": _decided_gap_run(), "variant": "tuned", "rounds": 5, "block": 1, "budget_runs": 2}
    created = client.post("/api/attributions", json=body)
    assert created.status_code == 201, created.text
    attribution_id = created.json()["id"]

    def in_step_one(event: Event) -> bool:
        """Its first step started: seen live, or already in the snapshot of a viewer come late."""
        if event.event == "snapshot":
            return bool((event.json().get("progress") or {}).get("current_run_id"))
        return event.event == "step"

    received = _watch(client, f"/api/attributions/{attribution_id}/events", in_step_one)

    # the live viewer: its snapshot first, entries each once in order, the final status last
    assert received[0].event == "snapshot" and received[0].json()["status"] in ("queued", "running")
    assert received[-1].event == "status" and received[-1].json()["status"] == "cancelled"
    assert all(e.json().get("status") not in FINAL for e in received[1:-1] if e.event == "status")
    order = _entry_order(received)
    assert order == sorted(order) and len(set(order)) == len(order)

    # the whole stream from its first entry (the live viewer may have connected after step 1 began)
    path = f"/api/attributions/{attribution_id}/events?last_event_id=0-0"
    with client.stream("GET", path, timeout=30) as response:
        history = list(events(response))
    steps = [e.json() for e in history if e.event == "step"]
    assert steps[0]["step"] == 1 and steps[0]["state"] == "started" and steps[0]["run_id"] > 0
    assert all(s["step"] == 1 for s in steps), "cancelled during its first step run"
    progress = [e.json()["progress"] for e in history if e.event == "status" and e.json().get("progress")]
    assert progress[0]["current_run_id"] == steps[0]["run_id"] and progress[0]["message"] == "step 1"
    assert history[-1].event == "status" and history[-1].json()["status"] == "cancelled"
    live = [e for e in received if e.event != "snapshot"]  # the snapshot's id is its cursor
    assert set(_entry_order(live)) <= set(_entry_order(history)), "the live viewer saw the same entries"


def _login(api: str, username: str, password: str) -> str:
    answer = httpx.post(f"{api}/api/auth/login", json={"username": username, "password": password})
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["token"]
    return token


def test_a_job_stream_needs_a_signed_in_user_a_viewer_may_watch_and_a_share_token_opens_none(
    client: httpx.Client, api: str
) -> None:
    # a finished attribution (its run synthetic): the stream is its snapshot only
    run_id = _decided_gap_run()
    body = {"run_id": run_id, "variant": "tuned", "rounds": 5, "block": 1, "budget_runs": 2}
    attribution_id = client.post("/api/attributions", json=body).json()["id"]
    assert client.post(f"/api/attributions/{attribution_id}/cancel").status_code == 200
    assert wait_attribution(client, attribution_id, timeout_s=120)["status"] == "cancelled"
    token = client.post(f"/api/attributions/{attribution_id}/share").json()["share_token"]
    paths = [f"/api/attributions/{attribution_id}/events", "/api/replays/1/events"]

    for path in paths:
        assert httpx.get(f"{api}{path}").status_code == 401, path
        shared = {"Authorization": f"Bearer {token}"}
        assert httpx.get(f"{api}{path}", headers=shared).status_code == 401, path

    client.post("/api/users", json={"username": "stream-viewer", "password": "viewer-pass", "role": "viewer"})
    viewer = {"Authorization": f"Bearer {_login(api, 'stream-viewer', 'viewer-pass')}"}
    with httpx.stream("GET", f"{api}{paths[0]}", headers=viewer, timeout=30) as response:
        assert response.status_code == 200
        watched = list(events(response))
    assert [e.event for e in watched] == ["snapshot"] and watched[0].json()["status"] == "cancelled"
    assert "share_token" not in watched[0].data

    assert client.get("/api/replays/999999/events").status_code == 404
    assert client.get("/api/attributions/999999/events").status_code == 404
    refused = client.get(paths[0], headers={"Last-Event-ID": "not-an-id"})
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["header", "Last-Event-ID"]
