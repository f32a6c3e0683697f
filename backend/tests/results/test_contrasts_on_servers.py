"""Contrasts on real servers: parallel-read's threads=2 / threads=1 on MySQL 9.7, warm, read back
through `upgradelab run --json`, with the A/A control's change of it; one group over itself is 1 in
every round and never decided; lock-waits on MySQL 9.7 and MariaDB 10.11, the monitor cost per version.

Whether two threads are decided faster than one, and the A/A control's change not decided, is not
judged here: on this shared 2-core host a round where another process holds a core gives two threads
no gain (bench/power_checks.py parallel-read, results in bench/README.md)."""

import json
import subprocess
from typing import Any

import pytest

from tests.conftest import BIN
from upgradelab.db import sync_session
from upgradelab.results.stats.verdicts import VERDICT_COLUMNS, VERDICTS
from upgradelab.results.store.rounds import load
from upgradelab.results.views.contrasts import of_rounds
from upgradelab.runs.models import Run
from upgradelab.workloads.base import Contrast, Side

DECIDED = {"regression", "improvement"}


@pytest.fixture(scope="module")
def parallel_read_run(api: str) -> dict[str, Any]:
    """One warm run: threads 1 and 2, 5 rounds of 2 counts per group on 2^16 rows, with an A/A control
    (the mechanics only: the contrast's size is bench/power_checks.py parallel-read's)."""
    done = subprocess.run(
        [
            str(BIN / "upgradelab"), "run", "--api", api, "--workload", "parallel-read",
            "--variant", "mysql-9.7", "--aa-control", "--policy", "warm", "--iterations", "20",
            "--rounds", "5", "--param", "log2_rows=16", "--param", "threads=[1, 2]",
            "--param", "buffer_pool_size=256M", "--seed", "23", "--json",
        ],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.mark.timeout(900)
def test_parallel_read_gives_the_threads_contrast_per_variant_with_its_interval(
    parallel_read_run: dict[str, Any],
) -> None:
    print("parallel-read contrasts", json.dumps(parallel_read_run["contrasts"]))
    rows = [row for row in parallel_read_run["contrasts"] if row["name"] == "threads=2 / threads=1"]
    assert [row["variant"] for row in rows] == ["mysql-9.7 default", "mysql-9.7 default (A/A)"]
    for row in rows:
        assert set(row) == {"variant", "name", *VERDICT_COLUMNS}
        assert row["ratio_rounds"] == 5 and 0 < row["ratio_low"] <= row["ratio"] <= row["ratio_high"], row
        assert row["verdict"] in VERDICTS, row


@pytest.mark.timeout(900)
def test_a_null_contrast_is_not_decided(parallel_read_run: dict[str, Any]) -> None:
    # the A/A control's threads=2 / threads=1 over variant 0's: same server, same rounds
    [change] = parallel_read_run["contrast_changes"]
    assert change["variant"] == "mysql-9.7 default (A/A)" and change["ratio_rounds"] == 5
    assert change["ratio_low"] <= change["ratio"] <= change["ratio_high"] and change["verdict"] in VERDICTS
    print("parallel-read A/A change", json.dumps(change))
    # one group over itself, from the stored iterations: every round's ratio is 1
    with sync_session() as session:
        run = session.get_one(Run, parallel_read_run["run_id"])
        same = Contrast("threads=2 / threads=2", Side("threads=2"), Side("threads=2"))
        [mine, _aa] = of_rounds(load(session, run), [same]).within
    assert mine.verdict is not None and mine.verdict.verdict not in DECIDED
    assert (mine.verdict.low, mine.verdict.ratio, mine.verdict.high) == (1.0, 1.0, 1.0)


@pytest.mark.timeout(900)
def test_lock_waits_on_two_versions_gives_the_monitor_cost_per_version_and_its_change(api: str) -> None:
    # 8 rounds (more than a verdict's 5: the change's interval is the quotients' over 8) of 4 threads x
    # 20 commits on 20 rows: contention on every row, at half the 40 commits per thread it once used
    # (the mechanics only: the monitor's cost is not judged here)
    done = subprocess.run(
        [
            str(BIN / "upgradelab"), "run", "--api", api, "--workload", "lock-waits",
            "--variant", "mysql-9.7", "--variant", "mariadb-10.11", "--iterations", "8", "--rounds", "8",
            "--param", "threads=4", "--param", "rows=20", "--param", "transactions=20", "--json",
        ],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    costs = {row["variant"]: row for row in report["contrasts"]}
    assert set(costs) == {"mysql-9.7 default", "mariadb-10.11 default"}
    for row in costs.values():
        assert row["name"] == "monitor=on / monitor=off" and row["ratio_rounds"] == 8
        assert 0 < row["ratio_low"] <= row["ratio"] <= row["ratio_high"] and row["verdict"] in VERDICTS
    [change] = report["contrast_changes"]
    assert (change["baseline"], change["variant"]) == ("mysql-9.7 default", "mariadb-10.11 default")
    assert change["ratio_rounds"] == 8 and change["ratio_low"] <= change["ratio"] <= change["ratio_high"]
    # the change is the per-round quotient of the two contrasts: its centre lies near theirs
    quotient = costs["mariadb-10.11 default"]["ratio"] / costs["mysql-9.7 default"]["ratio"]
    assert change["ratio_low"] <= quotient <= change["ratio_high"], (change, quotient)
    print("lock-waits contrasts", json.dumps(report["contrasts"]), json.dumps(report["contrast_changes"]))
