"""The API restarted while two viewers follow a run live (issue 10): they resume, no gap, no duplicate."""

import time

import pytest

from tests.faults.helpers import assert_nothing_left, assert_nothing_lost_or_duplicated, submit, wait_until
from tests.faults.instance import LabInstance
from tests.faults.sse_client import RunWatcher

pytestmark = pytest.mark.timeout(300)


def test_two_viewers_resume_after_an_api_restart_without_gap_or_duplicate(lab: LabInstance) -> None:
    with lab.client() as client:
        run_id = submit(client, "mariadb-10.11", iterations=200)
        wait_until(client, run_id, lambda run: run["iterations_done"] >= 3, timeout_s=120)
    watchers = [RunWatcher(lab.url, lab.token, run_id) for _ in range(2)]
    for watcher in watchers:
        watcher.start()
    while not all(watcher.points for watcher in watchers):
        time.sleep(0.1)
    assert lab.run_row(run_id)["status"] == "running", "the run ended before the restart: make it longer"
    lab.stop_api()
    time.sleep(2)
    lab.start_api()
    for watcher in watchers:
        watcher.join(timeout=240)
        assert not watcher.is_alive(), "a viewer never saw the final status"

    with lab.client() as client:
        run = client.get(f"/api/runs/{run_id}").json()
    assert run["status"] == "succeeded", run["error"]
    stored = {(v, i) for v, i, _ in lab.stored_iterations(run_id)}
    assert assert_nothing_lost_or_duplicated(lab, run_id) == 200
    for watcher in watchers:
        assert watcher.final == "succeeded"
        assert watcher.connections >= 2, "the viewer was never cut off by the restart"
        assert len(watcher.points) == len(set(watcher.points)), "a viewer got an iteration twice"
        assert set(watcher.points) == stored, f"a viewer missed {sorted(stored - set(watcher.points))}"
    assert_nothing_left(lab)
