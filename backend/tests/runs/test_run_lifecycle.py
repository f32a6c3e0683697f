"""Runs through the real API, Redis queue and Celery worker, on the lab's real servers."""

import time
from datetime import datetime

import httpx
from sqlalchemy import func, select

from tests.runs.helpers import submit, wait_final, wait_status
from upgradelab.db import sync_session
from upgradelab.results.store.models import Iteration, Sample
from upgradelab.runs.models import RunVariant


def _at(run: dict[str, str], field: str) -> datetime:
    return datetime.fromisoformat(run[field])


def _sample_count(run_id: int) -> int:
    with sync_session() as session:
        return session.scalar(select(func.count()).where(Sample.run_id == run_id)) or 0


def test_run_of_two_variants_stores_every_iteration_and_succeeds(client: httpx.Client) -> None:
    run_id = submit(
        client, [{"target": "mysql-9.7"}, {"target": "mysql-9.7", "preset": "redo-off"}], iterations=5
    )
    run = wait_final(client, run_id)
    assert run["status"] == "succeeded", run["error"]
    assert run["error"] is None and run["started_at"] and run["finished_at"]
    assert run["iterations_done"] == run["iterations_total"] == 10
    assert _sample_count(run_id) == 2 * 5 * 10  # variants x iterations x statements
    results = client.get(f"/api/runs/{run_id}/results").json()
    assert [s["variant"] for s in results["series"]] == ["mysql-9.7 default", "mysql-9.7 redo-off"]
    assert [len(s["iterations"]) for s in results["series"]] == [5, 5]
    assert all(t > 0 for s in results["series"] for t in s["elapsed_s"])
    assert [row["iterations"] for row in results["summary"]] == [5, 5]
    statements = client.get(f"/api/runs/{run_id}/statements").json()
    assert [(row["variant_index"], row["statement"], row["count"]) for row in statements[:10]] == [
        (0, f"{verb} test{n}", 5) for verb in ("INSERT", "TRUNCATE") for n in range(1, 6)
    ]
    assert len(statements) == 20
    targets = {t["name"]: t["version"] for t in client.get("/api/targets").json()}
    assert targets["mysql-9.7"].startswith("9.7.")


def test_variant_with_a_value_the_server_refuses_is_refused_before_any_iteration_and_the_others_run(
    client: httpx.Client,
) -> None:
    run_id = submit(
        client,
        [
            {"target": "mariadb-10.11"},
            # a name the server lists (names are checked when the experiment is made), a value it refuses
            {"target": "mysql-9.7", "name": "typo", "options": {"innodb_log_writer_threads": "maybe"}},
        ],
        iterations=3,
    )
    run = wait_final(client, run_id)
    assert run["status"] == "failed"
    assert "variant 'typo'" in run["error"]
    assert "refuses its options" in run["error"] and "'maybe'" in run["error"]
    assert run["finished_at"] is not None
    states = {v["name"]: v for v in run["variant_states"]}
    assert states["typo"]["status"] == "failed" and "'maybe'" in states["typo"]["error"]
    assert states["mariadb-10.11 default"]["status"] == "succeeded"
    assert _sample_count(run_id) == 3 * 10  # the valid variant ran all its iterations
    with sync_session() as session:
        refused_at = session.scalars(
            select(RunVariant.finished_at).where(RunVariant.run_id == run_id, RunVariant.name == "typo")
        ).one()
        first_iteration = session.scalar(
            select(func.min(Iteration.ended_at)).where(Iteration.run_id == run_id)
        )
    assert refused_at is not None and first_iteration is not None and refused_at < first_iteration


def test_variant_the_flavor_cannot_take_is_refused_when_the_experiment_is_made(client: httpx.Client) -> None:
    body = {"workload": "insert-truncate", "variants": [{"target": "mariadb-10.11", "preset": "redo-off"}]}
    refused = client.post("/api/experiments", json=body)
    assert refused.status_code == 422
    [error] = refused.json()["detail"]
    assert error["loc"] == ["body", "variants", 0, "preset"]
    assert "mariadb-10.11 redo-off" in error["msg"] and "not supported by mariadb" in error["msg"]


def test_bad_input_names_the_field(client: httpx.Client) -> None:
    unknown_target = client.post(
        "/api/experiments", json={"workload": "insert-truncate", "variants": [{"target": "mysql-5.7"}]}
    )
    assert unknown_target.status_code == 422
    assert unknown_target.json()["detail"][0]["loc"] == ["body", "variants", 0, "target"]
    injected = client.post(
        "/api/experiments",
        json={
            "workload": "insert-truncate",
            "variants": [{"target": "mysql-9.7", "options": {"max_connections": "5\ninit-file=/tmp/x"}}],
        },
    )
    assert injected.status_code == 422
    assert injected.json()["detail"][0]["loc"][:3] == ["body", "variants", 0]
    assert "max_connections" in injected.json()["detail"][0]["msg"]


def test_second_run_on_a_busy_target_waits_and_never_overlaps(client: httpx.Client) -> None:
    first = submit(client, [{"target": "mariadb-10.11"}], iterations=40)
    second = submit(client, [{"target": "mariadb-10.11", "preset": "skip-log-bin"}], iterations=5)
    wait_status(client, first, {"running"})
    assert client.get(f"/api/runs/{second}").json()["status"] == "queued"
    runs = [wait_final(client, first), wait_final(client, second)]
    assert [r["status"] for r in runs] == ["succeeded", "succeeded"]
    spans = sorted((_at(r, "started_at"), _at(r, "finished_at")) for r in runs)
    assert spans[0][1] <= spans[1][0], f"runs overlapped: {spans}"


def test_cancel_stops_a_running_run_within_an_iteration_and_keeps_its_results(client: httpx.Client) -> None:
    run_id = submit(client, [{"target": "mariadb-10.11"}], iterations=5000)
    wait_status(client, run_id, {"running"})
    while client.get(f"/api/runs/{run_id}").json()["iterations_done"] < 3:
        time.sleep(0.05)
    assert client.post(f"/api/runs/{run_id}/cancel").status_code == 200
    run = wait_final(client, run_id, timeout_s=60)
    assert run["status"] == "cancelled"
    assert 3 <= run["iterations_done"] < 5000
    assert _sample_count(run_id) == run["iterations_done"] * 10
