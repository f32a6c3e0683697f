"""A run through the real API, Celery worker and servers stores probe values for every iteration."""

import httpx
from sqlalchemy import func, select

from tests.runs.helpers import submit, wait_final
from upgradelab.db import sync_session
from upgradelab.probes.models import ProbeSample, ProbeSeries


def test_run_stores_probe_values_per_iteration_beside_client_time(client: httpx.Client) -> None:
    run_id = submit(
        client,
        [
            {"target": "mysql-9.7", "name": "mysql"},
            {"target": "mariadb-10.11", "name": "mariadb"},
            {"target": "mysql-9.7", "name": "no-ps", "options": {"performance_schema": "OFF"}},
        ],
        iterations=3,
    )
    run = wait_final(client, run_id)
    assert run["status"] == "succeeded", run["error"]
    with sync_session() as session:
        stored = session.execute(
            select(ProbeSample.variant_index, ProbeSample.iteration, func.count())
            .where(ProbeSample.run_id == run_id, ProbeSample.probe == "buffer_pool")
            .group_by(ProbeSample.variant_index, ProbeSample.iteration)
        ).all()
        # the worker registered the probes' run-end hook (runs/tasks.py): their columns were packed
        packed = session.scalars(select(ProbeSeries.count).where(ProbeSeries.run_id == run_id)).all()
    assert sorted(stored) == [(v, i, 5) for v in range(3) for i in (1, 2, 3)]
    assert packed == [3, 3, 3]

    probes = client.get(f"/api/runs/{run_id}/probes").json()
    assert probes["status"] == "succeeded"
    mysql, mariadb, no_ps = probes["variants"]
    assert [p["iteration"] for p in mysql["iterations"]] == [1, 2, 3]
    for variant in (mysql, mariadb):
        for point in variant["iterations"]:
            # ten SQL statements per iteration, the server's time in seconds as the client's: a unit
            # slip (ms, ps) is 1000x or more. Their ratio is no gate matter: the statement event ends
            # after the OK packet is sent (server_s passed client_s by 13 % beside another pytest
            # worker) and the client's time holds its own scheduling: within 10x either way.
            assert point["statements"] == 10
            assert point["client_s"] / 10 < point["server_s"] < 10 * point["client_s"]
            assert point["read_requests"] > 0
            assert point["hit_rate"] is None or 0 <= point["hit_rate"] <= 1
    assert mysql["unavailable"] == []
    assert mysql["top_mutex_waits"] and all(w["count"] > 0 for w in mysql["top_mutex_waits"])
    assert len(mysql["top_mutex_waits"]) <= 10
    waits_ms = [w["wait_ms"] for w in mysql["top_mutex_waits"]]
    assert waits_ms == sorted(waits_ms, reverse=True)
    assert {u["probe"]: u["reason"] for u in no_ps["unavailable"]} == {
        "mutex_waits": "performance_schema is OFF on this server",
        "statement_time": "performance_schema is OFF on this server",
    }
    assert all(p["server_s"] is None and p["client_s"] > 0 for p in no_ps["iterations"])
    assert no_ps["top_mutex_waits"] == []


def test_probes_of_an_unknown_run_is_404(client: httpx.Client) -> None:
    assert client.get("/api/runs/999999/probes").status_code == 404
