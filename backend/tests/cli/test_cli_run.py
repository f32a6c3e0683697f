"""`upgradelab run --json`: submits to the same queue, waits, prints the per-variant summary.

The first test runs the installed `upgradelab` script in its own process (the entry point, its exit
code and its streams); the others invoke the same Typer app in this process (typer's CliRunner),
which sends the same HTTP requests to the same API and worker and saves an interpreter start and the
CLI's imports (about 3 s of CPU each on this host, more under load) per command (issue 31)."""

import json
import subprocess

import httpx
from typer.testing import CliRunner, Result

from tests.conftest import BIN
from upgradelab.cli import app
from upgradelab.results.stats.verdicts import VERDICTS


def _process(api: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`upgradelab run --api API ARGS` as its own process."""
    return subprocess.run(
        [str(BIN / "upgradelab"), "run", "--api", api, *args], capture_output=True, text=True, timeout=300
    )


def _cli(api: str, *args: str) -> Result:
    """`upgradelab run --api API ARGS` in this process: .exit_code, .stdout, .stderr apart."""
    return CliRunner().invoke(app, ["run", "--api", api, *args])


def _failure(done: Result) -> str:
    """What an unexpected exit says: its streams (--json puts the run's error on stdout) and the
    exception the command raised, if any."""
    return done.stderr + done.stdout + (repr(done.exception) if done.exception else "")


def test_run_json_prints_the_summary_of_each_variant(api: str) -> None:
    done = _process(
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
    assert f"run {report['run_id']} queued" in done.stderr


def test_refused_variant_exits_2_naming_the_field(api: str) -> None:
    done = _cli(api, "--variant", "mariadb-10.11:redo-off", "--iterations", "2", "--json")
    assert done.exit_code == 2, _failure(done)
    assert "variants.0.preset" in done.stderr and "not supported by mariadb" in done.stderr
    assert done.stdout == ""


def test_unreachable_api_exits_2_with_a_clear_message() -> None:
    done = _cli("http://127.0.0.1:9", "--variant", "mysql-9.7")
    assert done.exit_code == 2, _failure(done)
    assert "cannot reach the Upgrade Lab API at http://127.0.0.1:9" in done.stderr


def test_param_and_policy_reach_the_template(api: str) -> None:
    done = _cli(
        api, "--workload", "count-star", "--variant", "mariadb-10.11", "--iterations", "2",
        "--param", "rows=40", "--param", 'tables=["test_short"]', "--param", "buffer_pool_size=32M",
        "--policy", "cold_every", "--json",
    )  # fmt: skip
    assert done.exit_code == 0, _failure(done)
    [row] = json.loads(done.stdout)["summary"]
    assert row["iterations"] == 2
    assert "dataset: " in done.stderr  # preparation progress (or "dataset reused") on stderr


def test_a_bad_param_exits_2_naming_the_parameter(api: str) -> None:
    done = _cli(api, "--workload", "count-star", "--variant", "mysql-9.7", "--param", "rows=3", "--json")
    assert done.exit_code == 2, _failure(done)
    assert "parameters.rows" in done.stderr


def test_lock_waits_custom_sql_and_log_writer_threads_off_run_on_both_lab_servers(api: str) -> None:
    both = ["--variant", "mysql-9.7", "--variant", "mariadb-10.11", "--iterations", "1", "--json"]
    locks = _cli(
        api, "--workload", "lock-waits", "--param", "threads=3", "--param", "transactions=5",
        "--param", "rows=3", *both,
    )  # fmt: skip
    assert locks.exit_code == 0, _failure(locks)
    # one row per variant and group (monitor=off, monitor=on): verdicts are never pooled across groups
    rows = json.loads(locks.stdout)["summary"]
    assert [(row["group"], row["iterations"]) for row in rows] == [("monitor=off", 1), ("monitor=on", 1)] * 2
    # MySQL's preset rides on the custom-sql run: one server start fewer than a run of its own
    custom = _cli(
        api, "--workload", "custom-sql", "--param", "database=lab_cli",
        "--param", "setup_sql=CREATE TABLE IF NOT EXISTS t (id INT)",
        "--param", "iteration_sql=INSERT INTO t VALUES (1)",
        "--param", "teardown_sql=DROP DATABASE lab_cli",
        "--variant", "mysql-9.7:log-writer-threads-off", "--variant", "mariadb-10.11", "--iterations", "1",
        "--json",
    )  # fmt: skip
    assert custom.exit_code == 0, _failure(custom)
    summary = json.loads(custom.stdout)["summary"]
    assert [row["variant"] for row in summary] == [
        "mysql-9.7 log-writer-threads-off",
        "mariadb-10.11 default",
    ]
    assert [row["iterations"] for row in summary] == [1, 1]


def test_schedule_options_reach_the_experiment_and_max_rounds_extends_an_open_run(
    api: str, client: httpx.Client
) -> None:
    # 3 rounds are "insufficient rounds" (a verdict needs 5): the run goes on to its budget of 4
    done = _cli(
        api, "--variant", "mariadb-10.11", "--rounds", "3", "--block", "2", "--aa-control", "--seed", "5",
        "--max-rounds", "4", "--json",
    )  # fmt: skip
    assert done.exit_code == 0, _failure(done)
    report = json.loads(done.stdout)
    assert [row["variant"] for row in report["summary"]] == [
        "mariadb-10.11 default",
        "mariadb-10.11 default (A/A)",
    ]
    assert [row["rounds"] for row in report["summary"]] == [4, 4]
    assert [row["iterations"] for row in report["summary"]] == [4 * 2, 4 * 2]  # rounds x block
    run = client.get(f"/api/runs/{report['run_id']}").json()
    assert run["rounds"] == 3 and run["block"] == 2  # as asked; the schedule as run (extended):
    assert run["schedule"]["kind"] == "interleaved" and run["schedule"]["seed"] == 5
    assert run["schedule"]["rounds"] == 4 and run["schedule"]["block"] == 2


def test_rounds_without_interleaving_and_a_budget_below_rounds_are_refused(api: str) -> None:
    sequential = _cli(
        api, "--variant", "mariadb-10.11", "--schedule", "sequential", "--rounds", "2", "--json"
    )
    assert sequential.exit_code == 2 and "rounds" in sequential.stderr, _failure(sequential)
    refused = _cli(api, "--variant", "mariadb-10.11", "--rounds", "3", "--max-rounds", "2", "--json")
    assert refused.exit_code == 2 and "max_rounds" in refused.stderr, _failure(refused)
