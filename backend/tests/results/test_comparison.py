"""The lab's MySQL 9.7 default against redo-off: ratio, interval and verdict, stored when the run ends."""

import csv
import io
from typing import Any

import httpx
import pytest

from tests.runs.helpers import submit, wait_final
from upgradelab.results.stats.verdicts import VERDICTS

ITERATIONS = 20


@pytest.fixture(scope="module")
def redo_run(api: str) -> int:
    from tests.conftest import auth_headers

    with httpx.Client(base_url=api, timeout=30, headers=auth_headers()) as client:
        run_id = submit(
            client,
            [{"target": "mysql-9.7"}, {"target": "mysql-9.7", "preset": "redo-off"}],
            ITERATIONS,
            "redo cmp",
        )
        run = wait_final(client, run_id)
    assert run["status"] == "succeeded", run["error"]
    return run_id


def _row(comparison: dict[str, Any], key: str) -> dict[str, Any]:
    return next(row for row in comparison["rows"] if row["key"] == key)


def test_comparison_of_default_and_redo_off_gives_ratio_interval_and_verdict(
    client: httpx.Client, redo_run: int
) -> None:
    comparison = client.get("/api/compare", params={"runs": str(redo_run)}).json()
    assert comparison["stored"] is True and comparison["unit"] == "s"
    assert comparison["baseline"] == f"{redo_run}:0"
    base, redo = _row(comparison, f"{redo_run}:0"), _row(comparison, f"{redo_run}:1")
    assert base["is_baseline"] and base["ratio"] is None and base["metric"] == "seconds"
    assert redo["variant"] == "mysql-9.7 redo-off" and redo["iterations"] == ITERATIONS
    ratio = redo["ratio"]
    assert ratio["low"] <= ratio["ratio"] <= ratio["high"] and ratio["mde"] > 0
    assert ratio["verdict"] in VERDICTS and ratio["method"] in {"paired rounds", "within-block bootstrap"}
    assert [len(s["points"]) for s in comparison["rounds"]] == [ratio["rounds"]] * 2


def test_warm_up_exclusion_and_another_baseline_are_computed_on_request(
    client: httpx.Client, redo_run: int
) -> None:
    params = {"runs": str(redo_run), "warmup": "5", "baseline": f"{redo_run}:1", "threshold": "0.5"}
    comparison = client.get("/api/compare", params=params).json()
    assert comparison["stored"] is False
    assert [row["iterations"] for row in comparison["rows"]] == [ITERATIONS - 5] * 2
    assert _row(comparison, f"{redo_run}:1")["is_baseline"]
    assert all(
        len(s["points"]) == ITERATIONS - 5 and s["points"][0]["iteration"] == 6 for s in comparison["series"]
    )


def test_runs_are_compared_against_each_other_on_the_same_axes(client: httpx.Client, redo_run: int) -> None:
    again = client.post(f"/api/runs/{redo_run}/rerun")
    assert again.status_code == 201
    second = again.json()["id"]
    assert wait_final(client, second)["status"] == "succeeded"
    comparison = client.get("/api/compare", params={"runs": f"{redo_run},{second}"}).json()
    assert [row["key"] for row in comparison["rows"]] == [
        f"{redo_run}:0",
        f"{redo_run}:1",
        f"{second}:0",
        f"{second}:1",
    ]
    assert comparison["rows"][2]["label"] == f"#{second} mysql-9.7 default"


def test_comparison_and_run_export_as_csv_and_json(client: httpx.Client, redo_run: int) -> None:
    table = client.get("/api/compare/export", params={"runs": str(redo_run), "format": "csv"})
    rows = list(csv.DictReader(io.StringIO(table.text)))
    assert [r["variant"] for r in rows] == ["mysql-9.7 default", "mysql-9.7 redo-off"]
    assert rows[1]["verdict"] in VERDICTS and rows[1]["ratio_low"] <= rows[1]["ratio"]
    export = client.get(f"/api/runs/{redo_run}/export", params={"format": "json"}).json()
    assert len(export["iterations"]) == 2 * ITERATIONS and set(export["iterations"][0]) == {
        "run_id", "variant_index", "variant", "iteration", "group", "round", "block", "position",
        "elapsed_s", "metrics",
    }  # fmt: skip
    assert [v["name"] for v in export["variants"]] == ["mysql-9.7 default", "mysql-9.7 redo-off"]


def test_a_bad_comparison_names_the_field(client: httpx.Client, redo_run: int) -> None:
    unknown = client.get("/api/compare", params={"runs": "999999"})
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["loc"] == ["query", "runs", 0]
    baseline = client.get("/api/compare", params={"runs": str(redo_run), "baseline": "1:9"})
    assert baseline.status_code == 422 and baseline.json()["detail"][0]["loc"] == ["query", "baseline"]
