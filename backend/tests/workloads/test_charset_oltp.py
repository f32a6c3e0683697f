"""Article 002's sysbench template: real sysbench 1.0.20 on both servers, its report parsed."""

from collections.abc import Iterator

import httpx
import pytest

from tests.workloads.helpers import run_experiment, start_for
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.workloads import ServerSession, sysbench
from upgradelab.workloads.charset_oltp import DATABASE, CharsetOltp, CharsetOltpParameters

SMALL = CharsetOltpParameters(
    script="oltp_point_select", tables=1, table_size=500, threads=[1, 2], duration_s=1, collation=None
)


@pytest.fixture(scope="module")
def server(provisioner: LocalProvisioner) -> Iterator[ServerSession]:
    # the variant's charset wins over the template's utf8mb4 (its option line comes last)
    one, _ = start_for(provisioner, CharsetOltp(SMALL), ["character-set-server=latin1"])
    yield one
    one.connection.close()


def test_prepare_creates_sysbench_tables_in_the_servers_charset(server: ServerSession) -> None:
    workload = CharsetOltp(SMALL)
    assert workload.dataset_spec(server)["charset"] == "latin1"
    workload.prepare(server)
    with server.connection.cursor() as cursor:
        cursor.execute(
            "SELECT TABLE_NAME, TABLE_COLLATION, TABLE_ROWS IS NOT NULL FROM information_schema.TABLES "
            "WHERE TABLE_SCHEMA = %s",
            (DATABASE,),
        )
        assert cursor.fetchall() == (("sbtest1", "latin1_swedish_ci", 1),)
        cursor.execute(f"SELECT COUNT(*) FROM {DATABASE}.sbtest1")
        assert cursor.fetchone() == (500,)


def test_run_reports_throughput_and_histogram_percentiles(server: ServerSession) -> None:
    workload = CharsetOltp(SMALL)
    [timing] = workload.iteration(server, 1, "threads=2")
    metrics = timing.metrics
    assert timing.statement == "sysbench oltp_point_select" and 0.9 < timing.elapsed_s < 5
    assert metrics["tps"] > 0 and metrics["qps"] >= metrics["tps"] and metrics["errors"] == 0
    assert 0 < metrics["p50_ms"] <= metrics["p95_ms"] <= metrics["p99_ms"] <= metrics["max_ms"]


def test_histogram_percentile_matches_sysbenchs_own_percentile(server: ServerSession) -> None:
    args = sysbench.command(
        "oltp_point_select",
        server.endpoint,
        DATABASE,
        "run",
        {"tables": 1, "table-size": 500, "threads": 1, "time": 1, "histogram": "on", "percentile": 95},
    )
    output = sysbench.run(args, timeout_s=60)
    report = sysbench.parse_report(output)
    assert report.reported_percentile is not None and report.reported_percentile[0] == 95
    # sysbench computes its percentile from the same buckets it prints
    assert report.p95_ms == pytest.approx(report.reported_percentile[1], abs=0.01)
    assert sum(count for _, count in sysbench.histogram(output)) == report.transactions


def test_percentile_rank_is_rounded_half_up_as_in_sysbench() -> None:
    # 14 events: 0.95 x 14 = 13.3 -> rank 13 (sysbench's floor(n * p + 0.5)), not 14 (ceiling)
    assert sysbench.histogram_percentile([(1.0, 13), (2.0, 1)], 0.95) == 1.0
    assert sysbench.histogram_percentile([(1.0, 12), (2.0, 2)], 0.95) == 2.0


def test_parser_names_what_is_missing() -> None:
    with pytest.raises(sysbench.SysbenchError, match="transactions"):
        sysbench.parse_report("FATAL: unable to connect to MySQL server")


@pytest.mark.timeout(300)
def test_thread_sweep_runs_from_the_api_on_mysql_97_with_caching_sha2(client: httpx.Client) -> None:
    body = {
        "workload": "charset-oltp",
        "iterations": 1,
        "parameters": SMALL.model_dump() | {"collation": "utf8mb4_0900_ai_ci"},
        "variants": [{"target": "mysql-9.7"}],
    }
    result = run_experiment(client, body)
    assert result["run"]["status"] == "succeeded", result["run"]["error"]
    points = {p["group"]: p for p in result["groups"]["groups"]}
    assert sorted(points) == ["threads=1", "threads=2"]
    for point in points.values():
        assert point["metrics"]["tps"] > 0 and point["metrics"]["p99_ms"] > 0
