"""The work counters as a real server gives them (their decisions: test_work_causes.py): MariaDB 10.11
started with performance_schema=ON times a replay by its own clock and, from the same history row,
counts each statement's work: a full scan of the 40,000 orders examines them all and counts a scan
without an index, a primary-key lookup examines one row, a DISTINCT over an unindexed column builds a
temporary table and sends its 2,000 rows. MariaDB has no CPU_TIME (MySQL 8.0.28+ only)."""

from pathlib import Path

from tests import ports
from tests.conftest import lab_provisioner
from tests.datasets.shop import CUSTOMERS, ORDERS
from upgradelab.execution.schedule import plan
from upgradelab.measurement.dataset_load import DumpDataset, file_sha256
from upgradelab.measurement.engine import ReplayVariant, replay_rounds
from upgradelab.measurement.sources import parse_source
from upgradelab.replay.compare import compare

QUERIES = (
    "SELECT COUNT(*) FROM orders WHERE note LIKE '%zz%';\n"
    "SELECT name FROM customers WHERE id = 3;\n"
    "SELECT DISTINCT email FROM customers;\n"
)
NAME = "mariadb-10.11"


def test_mariadb_with_performance_schema_counts_each_statements_work(shop_dump: Path) -> None:
    dataset = DumpDataset(shop_dump, file_sha256(shop_dump), "shop")
    statements = parse_source(QUERIES).statements
    provisioner = lab_provisioner(NAME, ports.UNIT_TARGETS[NAME], suffix="replay")
    variant = ReplayVariant(NAME, provisioner, ["performance_schema=ON"])
    (replay,) = replay_rounds([variant], dataset, statements, plan("interleaved", 1, 2, 1, 1))
    assert replay.clock == "server"
    scan, lookup, distinct = (report.work[NAME] for report in compare(statements, [replay]))
    # the runs of both timed passes counted (repeats: the last pass's runs)
    assert scan.executions > replay.repeats[0] >= 1 and lookup.executions > replay.repeats[1]
    assert all("cpu_time_s" not in tally.count for tally in replay.work)
    rows = scan.counters["rows_examined"]
    assert rows.low >= ORDERS and rows.low == rows.high  # the same work on every run
    assert scan.counters["select_scan"].mean >= 1 and scan.counters["no_index_used"].mean >= 1
    assert lookup.counters["rows_examined"].high <= 1 and lookup.counters["select_scan"].high == 0
    assert distinct.counters["created_tmp_tables"].mean >= 1
    assert distinct.counters["rows_sent"].mean == CUSTOMERS
