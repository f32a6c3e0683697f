"""docs/architecture.md "How to add a job kind", followed: a toy kind built from the recipe's steps
alone (tests/recipe/toy: models.py, jobs.py, runner.py, api.py) and registered in this test's API
and worker only (tests/recipe/launch.py, the one registration line), runs through the real API,
a real Celery worker (the generic task), its event stream, its cancel (the one watch) and its share
link, and its list, get and export (derived routes), as every product kind does. Nothing of the toy
is written outside its package."""

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import STATE, _stop, _wait_port, auth_headers
from tests.pools.second_pool import second_host_env
from tests.ports import RECIPE_API
from tests.recipe.toy.models import ToyBase
from tests.streaming.sse import Event, events
from upgradelab.db import sync_engine

pytestmark = pytest.mark.timeout(300)
BACKEND = Path(__file__).parents[2]
CANCEL_WITHIN_S = 5.0  # issue 30


def _launch(what: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.recipe.launch", *what],
        cwd=BACKEND,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )


@pytest.fixture(scope="module")
def toy_api(api: str) -> Iterator[httpx.Client]:
    """The toy's table made; an API and a worker of pool "toy" with the toy kind registered (the
    session's worker, which does not know it, consumes another queue); all undone after."""
    ToyBase.metadata.create_all(sync_engine())
    state = STATE / "toy"
    state.mkdir(parents=True, exist_ok=True)
    env = second_host_env("toy", state)
    api_process = _launch(
        ["api", str(RECIPE_API)], {**env, "UPGRADELAB_STATE_DIR": str(STATE)}, state / "api.log"
    )
    worker = _launch(["worker"], env, state / "worker.log")
    try:
        _wait_port(RECIPE_API, timeout_s=90)
        deadline = time.monotonic() + 60
        while " ready." not in (state / "worker.log").read_text(errors="replace"):
            assert worker.poll() is None and time.monotonic() < deadline, (state / "worker.log").read_text()
            time.sleep(0.2)
        with httpx.Client(
            base_url=f"http://127.0.0.1:{RECIPE_API}", timeout=30, headers=auth_headers()
        ) as http:
            yield http
    finally:
        _stop(worker)
        _stop(api_process)
        ToyBase.metadata.drop_all(sync_engine())


def _stream(client: httpx.Client, path: str) -> list[Event]:
    with client.stream("GET", path, timeout=httpx.Timeout(30, read=60)) as response:
        assert response.status_code == 200, response.read()
        return list(events(response))


def test_a_toy_kind_runs_streams_and_shares_through_the_derived_pieces(toy_api: httpx.Client) -> None:
    created = toy_api.post("/api/toys", json={"steps": 3, "step_s": 0.5})
    assert created.status_code == 201, (STATE / "toy" / "api.log").read_text()[-4000:]
    toy = created.json()["id"]
    where = toy_api.get(f"/api/pools/jobs/toy/{toy}")  # the pools lookup knows the kind
    assert where.status_code == 200 and where.json()["kind"] == "toy", where.text
    received = _stream(toy_api, f"/api/toys/{toy}/events")
    assert received[0].event == "snapshot" and received[0].json()["status"] in ("queued", "running")
    assert received[-1].event == "status" and received[-1].json()["status"] == "succeeded", received
    progress = [e.json().get("progress") for e in received[1:] if e.event == "status"]
    steps = [one["step"] for one in progress if one]
    assert steps == sorted(steps) and steps[-1] == 3, received
    done = toy_api.get(f"/api/toys/{toy}").json()
    assert done["status"] == "succeeded" and done["done"] == 3
    assert toy_api.get("/api/toys/999999").json()["detail"] == "toy 999999 not found"
    listed = toy_api.get("/api/toys", params={"steps": 3, "limit": 1}).json()  # the derived list
    assert [one["id"] for one in listed] == [toy], listed
    assert toy_api.get("/api/toys", params={"steps": 1000}).json() == []  # only those of `steps`
    assert toy_api.get("/api/toys", params={"limit": 0}).status_code == 422  # LIMIT: 1 to 500
    csv = toy_api.get(f"/api/toys/{toy}/export", params={"format": "csv"})  # the derived export
    assert csv.text == "steps,done\n3,3\n" and csv.headers["content-type"].startswith("text/csv")
    assert f'filename="toy-{toy}.csv"' in csv.headers["content-disposition"]
    assert toy_api.get(f"/api/toys/{toy}/export").json()["done"] == 3  # JSON by default
    assert toy_api.get("/api/toys/999999/export").status_code == 404

    shared = toy_api.post(f"/api/toys/{toy}/share")
    assert shared.status_code == 200 and shared.json()["share_token"], shared.text
    public = httpx.get(f"http://127.0.0.1:{RECIPE_API}/api/public/toys/{shared.json()['share_token']}")
    assert public.status_code == 200 and public.json()["done"] == 3 and public.json()["share_token"] is None
    assert httpx.get(f"http://127.0.0.1:{RECIPE_API}/api/public/toys/nothing").status_code == 404
    assert toy_api.post(f"/api/toys/{toy}/cancel").status_code == 409  # it already ended


def test_a_toy_job_is_cancelled_by_the_one_cancel_watch(toy_api: httpx.Client) -> None:
    toy = toy_api.post("/api/toys", json={"steps": 1000, "step_s": 0.2}).json()["id"]
    deadline = time.monotonic() + 60
    while toy_api.get(f"/api/toys/{toy}").json()["done"] < 2:
        assert time.monotonic() < deadline, toy_api.get(f"/api/toys/{toy}").text
        time.sleep(0.2)
    asked = time.monotonic()
    assert toy_api.post(f"/api/toys/{toy}/cancel").status_code == 200
    while toy_api.get(f"/api/toys/{toy}").json()["status"] != "cancelled":
        assert time.monotonic() - asked < CANCEL_WITHIN_S, toy_api.get(f"/api/toys/{toy}").text
        time.sleep(0.1)
    received = _stream(toy_api, f"/api/toys/{toy}/events")
    assert received[-1].json()["status"] == "cancelled"  # a final job's stream: its snapshot
    assert toy_api.get(f"/api/toys/{toy}").json()["done"] < 1000
