"""`upgradelab run --json`: submits to the same queue, waits, prints the per-variant summary."""

import json
import subprocess

import httpx

from tests.conftest import BIN
from upgradelab.results.stats.verdicts import VERDICTS


def _cli(api: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "upgradelab"), "run", "--api", api, *args], capture_output=True, text=True, timeout=300
    )


def test_run_json_prints_the_summary_of_each_variant(api: str) -> None:
    done = _cli(
        api, "--workload", "insert-truncate", "--variant", "mariadb-10.11", "--variant",
        "mariadb-10.11:skip-log-bin", "--iterations", "4", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "succeeded" and report["error"] is None
    variants = [row["variant"] for row in report["summary"]]
    assert variants == ["mariadb-10.11 default", "mariadb-10.11 skip-log-bin"]
    base, other = report["summary"]
    assert base["verdict"] == "baseline" and base["ratio"] == 1.0
    assert other["verdict"] in VERDICTS and other["ratio_low"] <= other["ratio"] <= other["ratio_high"]
    for row in report["summary"]:
        assert row["iterations"] == 4 and row["metric"] == "seconds" and "group" not in row
        assert 0 < row["median_s"] <= row["p95_s"] and row["median"] == row["median_s"]


def test_refused_variant_exits_2_naming_the_field(api: str) -> None:
    done = _cli(api, "--variant", "mariadb-10.11:redo-off", "--iterations", "2", "--json")
    assert done.returncode == 2
    assert "variants.0.preset" in done.stderr and "not supported by mariadb" in done.stderr
    assert done.stdout == ""


def test_log_writer_threads_off_runs_on_mysql(api: str) -> None:
    done = _cli(api, "--variant", "mysql-9.7:log-writer-threads-off", "--iterations", "1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"][0]["variant"] == "mysql-9.7 log-writer-threads-off"


def test_unreachable_api_exits_2_with_a_clear_message() -> None:
    done = _cli("http://127.0.0.1:9", "--variant", "mysql-9.7")
    assert done.returncode == 2
    assert "cannot reach the Upgrade Lab API at http://127.0.0.1:9" in done.stderr


def test_param_and_policy_reach_the_template(api: str) -> None:
    done = _cli(
        api, "--workload", "count-star", "--variant", "mariadb-10.11", "--iterations", "2",
        "--param", "rows=40", "--param", 'tables=["test_short"]', "--param", "buffer_pool_size=32M",
        "--policy", "cold_every", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [row] = json.loads(done.stdout)["summary"]
    assert row["iterations"] == 2
    assert "dataset: " in done.stderr  # preparation progress (or "dataset reused") on stderr


def test_a_bad_param_exits_2_naming_the_parameter(api: str) -> None:
    done = _cli(api, "--workload", "count-star", "--variant", "mysql-9.7", "--param", "rows=3", "--json")
    assert done.returncode == 2
    assert "parameters.rows" in done.stderr


def test_lock_waits_and_custom_sql_run_on_both_lab_servers(api: str) -> None:
    both = ["--variant", "mysql-9.7", "--variant", "mariadb-10.11", "--iterations", "1", "--json"]
    locks = _cli(
        api, "--workload", "lock-waits", "--param", "threads=3", "--param", "transactions=5",
        "--param", "rows=3", *both,
    )  # fmt: skip
    assert locks.returncode == 0, locks.stderr
    # one row per variant and group (monitor=off, monitor=on): verdicts are never pooled across groups
    rows = json.loads(locks.stdout)["summary"]
    assert [(row["group"], row["iterations"]) for row in rows] == [("monitor=off", 1), ("monitor=on", 1)] * 2
    custom = _cli(
        api, "--workload", "custom-sql", "--param", "database=lab_cli",
        "--param", "setup_sql=CREATE TABLE IF NOT EXISTS t (id INT)",
        "--param", "iteration_sql=INSERT INTO t VALUES (1)",
        "--param", "teardown_sql=DROP DATABASE lab_cli", *both,
    )  # fmt: skip
    assert custom.returncode == 0, custom.stderr
    assert [row["iterations"] for row in json.loads(custom.stdout)["summary"]] == [1, 1]


def test_schedule_options_reach_the_experiment(api: str, client: httpx.Client) -> None:
    done = _cli(
        api, "--variant", "mariadb-10.11", "--rounds", "3", "--block", "2", "--aa-control", "--seed", "5",
        "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [row["variant"] for row in report["summary"]] == [
        "mariadb-10.11 default",
        "mariadb-10.11 default (A/A)",
    ]
    assert [row["iterations"] for row in report["summary"]] == [6, 6]
    run = client.get(f"/api/runs/{report['run_id']}").json()
    assert run["schedule"]["kind"] == "interleaved" and run["schedule"]["seed"] == 5
    assert run["schedule"]["rounds"] == 3 and run["schedule"]["block"] == 2
    sequential = _cli(
        api, "--variant", "mariadb-10.11", "--schedule", "sequential", "--rounds", "2", "--json"
    )
    assert sequential.returncode == 2 and "rounds" in sequential.stderr


def test_max_rounds_extends_an_open_run_and_a_budget_below_rounds_is_refused(api: str) -> None:
    # 3 rounds are "insufficient rounds" (a verdict needs 5): the run goes on to its budget of 4
    done = _cli(
        api, "--variant", "mariadb-10.11", "--rounds", "3", "--block", "1", "--aa-control",
        "--max-rounds", "4", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [row["rounds"] for row in json.loads(done.stdout)["summary"]] == [4, 4]
    refused = _cli(api, "--variant", "mariadb-10.11", "--rounds", "3", "--max-rounds", "2", "--json")
    assert refused.returncode == 2 and "max_rounds" in refused.stderr
