"""Template parameters through the API: schemas, defaults, the article's figures, field errors."""

import httpx

from tests.workloads.helpers import run_experiment


def test_workloads_list_every_template_with_schema_defaults_and_published_figures(
    client: httpx.Client,
) -> None:
    templates = {w["slug"]: w for w in client.get("/api/workloads").json()}
    assert set(templates) == {
        "count-star",
        "insert-truncate",
        "charset-oltp",
        "parallel-read",
        "lock-waits",
        "custom-sql",
    }
    count = templates["count-star"]
    assert count["parameters_schema"]["properties"]["rows"]["type"] == "integer"
    assert count["parameters_default"]["tables"] == ["test_short", "test_long", "test_long_uk"]
    assert count["default_policy"] == "cold_first" and "db.r6g.large" in count["setup"]
    assert any(f["values"][:2] == [72.30, 0.33] for f in count["published"])
    assert templates["charset-oltp"]["sweep"] == "threads"
    assert [p["name"] for p in count["policies"]] == ["warm", "cold_first", "cold_each_group", "cold_every"]
    assert client.get("/api/workloads/nope").status_code == 404


def test_a_bad_parameter_is_refused_naming_the_field(client: httpx.Client) -> None:
    body = {
        "workload": "count-star",
        "parameters": {"rows": 3, "colour": "red"},
        "variants": [{"target": "mysql-9.7"}],
    }
    refused = client.post("/api/experiments", json=body)
    assert refused.status_code == 422
    locs = [error["loc"] for error in refused.json()["detail"]]
    assert locs == [["body", "parameters", "rows"], ["body", "parameters", "colour"]]
    bad_policy = client.post("/api/experiments", json={**body, "parameters": {}, "policy": "lukewarm"})
    assert bad_policy.status_code == 422
    assert bad_policy.json()["detail"][0]["loc"] == ["body", "policy"]


def test_cold_every_restarts_before_each_iteration(client: httpx.Client) -> None:
    body = {
        "workload": "count-star",
        "iterations": 2,
        "policy": "cold_every",
        "parameters": {"rows": 320, "tables": ["test_long"], "buffer_pool_size": None},
        "variants": [{"target": "mariadb-10.11"}],
    }
    result = run_experiment(client, body)
    assert result["run"]["status"] == "succeeded", result["run"]["error"]
    assert result["experiment"]["parameters"]["rows"] == 320
    rows = result["groups"]["iterations"]
    # after a restart the table's pages come from disk every time
    assert [r["group"] for r in rows] == ["table=test_long"] * 2
    assert all(r["metrics"]["buffer_pool_reads"] > 0 for r in rows)
