"""What produced a run's results, through the API: the variables diff and the exports carrying the context."""

import csv
import io
import json

import httpx

from tests.results.synthetic import SyntheticVariant, insert_run
from upgradelab.db import sync_session


def _instance(slot: int, port: int) -> dict[str, str]:
    root = f"/var/lib/upgradelab/servers/mysql-9.7/instances/{slot}"
    return {"datadir": f"{root}/data/", "socket": f"{root}/mysqld.sock", "port": str(port)}


VARIANTS = [
    SyntheticVariant(
        "mysql-9.7 default",
        variables={"innodb_redo_log_enabled": "ON", "max_connections": "151", **_instance(0, 33097)},
    ),
    SyntheticVariant(
        "mysql-9.7 redo-off",
        shift=0.7,
        variables={"innodb_redo_log_enabled": "OFF", "max_connections": "151", **_instance(1, 40001)},
    ),
    SyntheticVariant(
        "mysql-9.7 default (A/A)",
        is_aa_control=True,
        variables={"max_connections": "200", **_instance(2, 40002)},
    ),
]


def _run() -> int:
    with sync_session() as session:
        return insert_run(session, VARIANTS, rounds=6, block=2, seed=4)


def test_context_lists_versions_schedule_and_only_the_variables_that_differ(client: httpx.Client) -> None:
    run_id = _run()
    context = client.get(f"/api/runs/{run_id}/context").json()
    assert context["schedule"]["seed"] == 4 and len(context["schedule"]["order"]) == 6
    assert all(sorted(order) == [0, 1, 2] for order in context["schedule"]["order"])
    assert context["context"]["host"]["cpu_model"] == "synthetic"
    assert [v["version"] for v in context["variants"]] == ["9.7.0"] * 3
    assert [v["is_aa_control"] for v in context["variants"]] == [False, False, True]
    diff = {d["name"]: d["values"] for d in client.get(f"/api/runs/{run_id}/variables-diff").json()}
    # the same everywhere (innodb_buffer_pool_size), or only the instance's own directory and port
    # (datadir, socket, port): not listed; a missing variable counts as different
    assert diff == {"innodb_redo_log_enabled": ["ON", "OFF", None], "max_connections": ["151", "151", "200"]}
    assert client.get("/api/runs/999999/variables-diff").status_code == 404


def test_exports_carry_the_context_and_the_variables(client: httpx.Client) -> None:
    run_id = _run()
    body = client.get(f"/api/runs/{run_id}/export", params={"format": "json"}).json()
    assert (
        body["schedule"]["seed"] == 4 and body["variants"][1]["variables"]["innodb_redo_log_enabled"] == "OFF"
    )
    assert len(body["iterations"]) == 3 * 6 * 2 and {i["round"] for i in body["iterations"]} == set(
        range(1, 7)
    )
    text = client.get(f"/api/runs/{run_id}/export", params={"format": "csv"}).text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 36 and rows[0]["version_comment"] == "(Debian)"
    redo = next(r for r in rows if r["variant_index"] == "1")
    assert json.loads(redo["variables_diff"]) == {"innodb_redo_log_enabled": "OFF", "max_connections": "151"}
    assert redo["schedule_seed"] == "4" and json.loads(redo["host"])["cores"] == 2


def test_the_comparison_endpoint_gives_the_verdict_with_the_a_a_floor(client: httpx.Client) -> None:
    run_id = _run()
    comparison = client.get("/api/compare", params={"runs": str(run_id)}).json()
    redo = next(r for r in comparison["rows"] if r["variant_index"] == 1)
    assert redo["ratio"]["verdict"] == "improvement" and redo["aa_floor"]["rounds"] == 6
    assert {s["key"] for s in comparison["rounds"]} == {f"{run_id}:{i}" for i in range(3)}
