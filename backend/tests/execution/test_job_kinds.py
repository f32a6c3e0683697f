"""What is derived from each registered JobKind (job_kinds.py) instead of written per kind: the
worker's Celery task (execution/task.py: its name, its soft time limit, its busy retry), the pools
page's job lookup (api/pools.py: every kind, not only runs and replays), the cancel watch's read
of the kind's own flag (execution/cancel.py) and the API's derived routes (api/job_routes.py)."""

import subprocess
import sys

import httpx
import pytest

from upgradelab.api.job_routes import path_ids
from upgradelab.attribution import state as attribution_state
from upgradelab.attribution.models import Attribution
from upgradelab.db import sync_session
from upgradelab.execution.cancel import CancelWatch
from upgradelab.execution.locks import TargetsBusy
from upgradelab.execution.status import JobStatus
from upgradelab.job_kinds import JOB_KINDS
from upgradelab.runs.models import Experiment, Run

# the worker's own start: the app, then its `include` modules as `celery -A upgradelab.worker worker`
# imports them (Celery's loader.import_default_modules)
_WORKER_TASKS = """
from upgradelab.worker import celery_app
celery_app.loader.import_default_modules()
for name, task in sorted(celery_app.tasks.items()):
    if name.startswith("upgradelab."):
        print(name, task.soft_time_limit, task.max_retries)
"""


def test_the_worker_has_one_task_per_kind_with_the_kinds_time_limit() -> None:
    out = subprocess.run([sys.executable, "-c", _WORKER_TASKS], capture_output=True, text=True, check=True)
    tasks = {
        name: (limit, retries) for name, limit, retries in (line.split() for line in out.stdout.splitlines())
    }
    for kind in JOB_KINDS:
        assert tasks[kind.task_name] == (str(kind.time_limit_s), "None"), kind.name
    # the names the queued messages of older versions carry
    assert {"upgradelab.runs.execute", "upgradelab.captures.check", "upgradelab.fixsearch.execute"} <= set(
        tasks
    )


def test_a_busy_target_retries_the_task_and_its_runner_is_the_kinds(monkeypatch: pytest.MonkeyPatch) -> None:
    from upgradelab.execution import task as generic

    [kind] = [k for k in JOB_KINDS if k.name == "capture"]
    calls: list[int] = []

    def busy(job_id: int, *_: object) -> str | None:
        calls.append(job_id)
        raise TargetsBusy("mariadb-10.11")

    monkeypatch.setattr(type(kind), "load_runner", lambda self: busy)
    monkeypatch.setattr(generic, "_TASKS", {})
    task = generic.job_task(kind)
    retried: list[float] = []

    def retry(countdown: float, exc: Exception) -> Exception:
        retried.append(countdown)
        return RuntimeError("retry")

    monkeypatch.setattr(task, "retry", retry)
    with pytest.raises(RuntimeError, match="retry"):
        task.run(7)
    assert calls == [7] and retried == [generic.BUSY_RETRY_S]


def test_the_pools_lookup_knows_every_kind(client: httpx.Client) -> None:
    for kind in JOB_KINDS:
        missing = client.get(f"/api/pools/jobs/{kind.name}/999999")
        assert missing.status_code == 404, (kind.name, missing.text)
    unknown = client.get("/api/pools/jobs/nothing/1")
    assert unknown.status_code == 422 and "kind" in unknown.json()["detail"]


def test_the_cancel_watch_reads_the_kinds_own_flag(database: None) -> None:
    [kind] = [k for k in JOB_KINDS if k.name == "capture_check"]
    watch = CancelWatch.of(kind, 999999)
    assert watch.cancelled() and watch.requested  # a row gone counts as asked: its work ends


def test_every_kind_has_its_event_stream_a_check_too(client: httpx.Client) -> None:
    """One route definition per registered kind (api/streaming.py): a capture check's stream exists
    (48u's page streams it), and an unknown job of any kind is a 404 naming the kind."""
    paths = client.get("/openapi.json").json()["paths"]
    for kind in JOB_KINDS:
        assert f"{kind.api_path}/events" in paths, kind.name
    missing = client.get("/api/captures/999999/checks/999999/events")
    assert missing.status_code == 404 and missing.json()["detail"] == "check 999999 not found"


def test_every_kinds_cancel_is_one_derived_route(client: httpx.Client) -> None:
    """POST <job>/cancel of every kind (api/job_routes.py cancel_route): the same 404 naming the kind
    for an unknown job (the owner check and the answers: tests/users/test_ownership.py,
    tests/execution/test_cancel_answers.py)."""
    for kind in JOB_KINDS:
        path = kind.api_path.format(**dict.fromkeys(path_ids(kind), 999999))
        missing = client.post(f"{path}/cancel")
        assert missing.status_code == 404, (kind.name, missing.text)
        assert missing.json()["detail"] == f"{kind.title} 999999 not found"


def test_every_kinds_get_list_and_export_are_the_derived_routes(client: httpx.Client) -> None:
    """GET <job>, its list and <job>/export (api/job_routes.py get_route, list_route, export_route):
    the same 404 naming the kind for an unknown job of every kind (a replay's said "no replay run N"
    before), a check's list 404 naming its capture, and the same `limit` bounds on every list that
    takes one (the read shapes and their viewer rules: tests/users/test_ownership.py)."""
    paths = client.get("/openapi.json").json()["paths"]
    for kind in JOB_KINDS:
        path = kind.api_path.format(**dict.fromkeys(path_ids(kind), 999999))
        for one in [path, f"{path}/export"] if f"{kind.api_path}/export" in paths else [path]:
            missing = client.get(one)
            assert missing.status_code == 404, (one, missing.text)
            assert missing.json()["detail"] == f"{kind.title} 999999 not found", one
    assert {"/api/replays/{replay_id}/export", "/api/fixsearches/{search_id}/export"} <= set(paths)
    unknown = client.get("/api/captures/999999/checks")
    assert unknown.status_code == 404 and unknown.json()["detail"] == "capture 999999 not found"
    for listed in ["/api/attributions", "/api/fixsearches", "/api/captures"]:
        assert client.get(listed, params={"limit": 501}).status_code == 422, listed
        assert client.get(listed, params={"limit": 1}).status_code == 200, listed


def test_no_kinds_writer_overwrites_a_final_job(database: None) -> None:
    """Every kind's state writer skips a job already final (execution/kinds.py write_unless_final):
    an attribution's did not (a step's progress written after a cancel or the reaper ended it)."""
    with sync_session() as session:
        experiment = Experiment(name="final", workload="insert-truncate", iterations=1, variants=[])
        session.add(experiment)
        session.flush()
        run = Run(experiment_id=experiment.id, status=JobStatus.succeeded)
        session.add(run)
        session.flush()
        row = Attribution(run_id=run.id, variant="b", baseline="a", status=JobStatus.cancelled)
        session.add(row)
        session.commit()
        attribution_id = row.id
    assert not attribution_state.write(attribution_id, progress={"phase": "late"})
    with sync_session() as session:
        found = session.get(Attribution, attribution_id)
        assert found is not None and found.progress is None and found.status == JobStatus.cancelled
