"""GET /api/runs/{id}/events: snapshot, live tail and resumption by Last-Event-ID, on a real run."""

import httpx
import pytest

from tests.runs.helpers import submit, wait_final, wait_status
from tests.streaming.sse import Event, events, iteration_keys

ITERATIONS = 12


def _read_until(client: httpx.Client, run_id: int, stop: int | None, headers: dict[str, str]) -> list[Event]:
    """Events until the stream ends, or until `stop` iteration events arrived (then disconnect)."""
    received: list[Event] = []
    with client.stream("GET", f"/api/runs/{run_id}/events", headers=headers, timeout=120) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for one in events(response):
            received.append(one)
            if stop is not None and sum(e.event == "iteration" for e in received) >= stop:
                break
    return received


def test_a_viewer_who_reconnects_with_last_event_id_gets_every_iteration_exactly_once(
    client: httpx.Client,
) -> None:
    run_id = submit(client, [{"target": "mariadb-10.11"}], iterations=ITERATIONS)
    wait_status(client, run_id, {"running"})
    first = _read_until(client, run_id, stop=3, headers={})
    assert first[0].event == "snapshot"
    last_id = next(e.id for e in reversed(first) if e.id)
    rest = _read_until(client, run_id, stop=None, headers={"Last-Event-ID": last_id})
    assert rest[0].event != "snapshot"  # a resumed viewer gets no second snapshot
    keys = iteration_keys(first + rest)
    assert sorted(keys) == [(0, i) for i in range(1, ITERATIONS + 1)]
    assert len(keys) == len(set(keys)), "an iteration arrived twice"
    assert rest[-1].event == "status" and rest[-1].json()["status"] == "succeeded"
    ids = [e.id for e in first + rest if e.id and e.event != "snapshot"]
    assert ids == sorted(ids, key=lambda i: tuple(map(int, i.split("-")))), (
        "ids are stream entry ids, in order"
    )


def test_a_finished_run_opens_with_its_stored_results_and_the_stream_ends(client: httpx.Client) -> None:
    run_id = submit(client, [{"target": "mariadb-10.11"}], iterations=3)
    assert wait_final(client, run_id)["status"] == "succeeded"
    received = _read_until(client, run_id, stop=None, headers={})
    assert [e.event for e in received] == ["snapshot"]
    snapshot = received[0].json()
    assert snapshot["run"]["status"] == "succeeded"
    assert [(v, i) for v, i, _s in snapshot["points"]] == [(0, 1), (0, 2), (0, 3)]
    assert all(s > 0 for _v, _i, s in snapshot["points"])


def test_events_of_an_unknown_run_are_404(client: httpx.Client) -> None:
    assert client.get("/api/runs/999999/events").status_code == 404


@pytest.mark.parametrize("bad", ["abc", "1-"])
def test_a_malformed_resume_id_is_refused_naming_the_field(client: httpx.Client, bad: str) -> None:
    response = client.get("/api/runs/1/events", params={"last_event_id": bad})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "last_event_id"]
