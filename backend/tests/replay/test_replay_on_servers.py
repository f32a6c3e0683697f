"""Replay of a slow log captured from the lab's own MariaDB 10.11 (long_query_time=0 while the queries
ran) on MariaDB 10.11 (baseline), MariaDB 11.8 and MySQL 9.7, each loaded with the shop dump, in
interleaved rounds; the known differences between them are found and the times carry rounds."""

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests import ports
from tests.conftest import lab_provisioner
from upgradelab.datasets.loader import load_dump
from upgradelab.execution.schedule import Schedule, plan
from upgradelab.measurement.dataset_load import DumpDataset, file_sha256
from upgradelab.measurement.engine import ReplayVariant, VariantReplay, replay_rounds
from upgradelab.measurement.sources import ParsedSource, parse_source
from upgradelab.replay.compare import compare
from upgradelab.replay.document import EXIT_BREAKS, EXIT_PLAN_CHANGES, exit_bits
from upgradelab.replay.report import FingerprintResult
from upgradelab.results.stats.verdicts import MIN_ROUNDS, VERDICTS
from upgradelab.workloads.base import execute, scalar

VARIANTS = ["mariadb-10.11", "mariadb-11.8", "mysql-9.7"]
ROUNDS = MIN_ROUNDS  # the fewest rounds a time verdict takes (a round: 3 variants x 16 statements x 2 passes)
PASSES = 2
SEED = 7
QUERIES = [
    "SELECT MD5(email) FROM customers WHERE id = 7",
    "SELECT SHA1(name) FROM customers WHERE id = 8",
    "SELECT PASSWORD('secret')",
    # grouped by an expression over a full scan: MySQL 8.0+ returns groups as first met (west first),
    # MariaDB still sorts them
    "SELECT CONCAT(region, '') AS r, COUNT(*), MAX(email) FROM customers GROUP BY r",
    "SELECT CONCAT(region, '') AS r, COUNT(*), MAX(email) FROM customers GROUP BY r ORDER BY r",
    "SELECT id, amount FROM orders WHERE status = 'shipped' AND created >= '2022-06-01' "
    "ORDER BY amount LIMIT 10",
    "SELECT c.region, SUM(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.id "
    "WHERE c.created > '2024-01-01' GROUP BY c.region ORDER BY c.region",
    "SELECT id FROM orders WHERE amount BETWEEN 100 AND 400 AND status = 'paid' ORDER BY id",
    "SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id "
    "WHERE c.region = 'east' AND o.status = 'new' ORDER BY o.created DESC, o.id LIMIT 5",
    "SELECT COUNT(*) FROM customers WHERE created BETWEEN '2021-01-01' AND '2023-12-31'",
    "SELECT COUNT(*) FROM orders WHERE amount > 900",
    "SELECT COUNT(*) FROM orders WHERE amount > 300",
    "SELECT COUNT(*) FROM orders WHERE customer_id IN (1, 2, 3, 4, 5) AND amount > 500",
    "SELECT COUNT(*) FROM orders WHERE customer_id IN (10, 20) AND amount > 500",
    "SELECT status, MAX(created) FROM orders WHERE created < '2022-01-01' GROUP BY status ORDER BY status",
    "UPDATE orders SET note = 'touched' WHERE id = 5",
]


GROUPED = "select concat(region, ?) as r, count(*), max(email) from customers group by r"


def _capture_slow_log(dump: Path, sha: str) -> str:
    """On MariaDB 10.11 holding the shop data, log every statement (long_query_time=0) while QUERIES
    run. The server is the one the shop dump was made on (tests/datasets/shop.py), started on the
    datadir it left: `shop` is there already, no load of the dump (~3 MB) needed; loaded when not."""
    provisioner = lab_provisioner("mariadb-10.11", ports.DUMP_SOURCE, suffix="dump")
    log_inner = f"{provisioner.inner_dir}/slow.log"
    log_file = provisioner.root / log_inner.lstrip("/")
    log_file.unlink(missing_ok=True)  # the server appends to a log an earlier session left
    try:
        endpoint = provisioner.start([], keep_data=True)
        setup = endpoint.connect()
        kept = scalar(setup, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'shop'")
        print("slow log captured on", "the dump's datadir" if kept else "the dump loaded afresh")
        if not kept:
            execute(setup, "CREATE DATABASE shop")
            load_dump(endpoint, "mariadb", dump, "shop")
        execute(setup, f"SET GLOBAL slow_query_log_file = '{log_inner}'", "SET GLOBAL long_query_time = 0")
        execute(setup, "SET GLOBAL slow_query_log = ON")
        workload = endpoint.connect(database="shop")  # a new session takes long_query_time = 0
        for sql in QUERIES:
            with workload.cursor() as cursor:
                cursor.execute(sql)
                cursor.fetchall()
        # A statement's slow-log entry is written after its OK reaches the client; the session's next
        # statement starts only once it is written, so this one makes the UPDATE's entry sure before
        # the log is switched off (CI missed it once). A SET is no statement to replay, whether logged
        # or not.
        execute(workload, "SET SESSION long_query_time = 10")
        workload.close()
        execute(setup, "SET GLOBAL slow_query_log = OFF")
        setup.close()
        return log_file.read_text()
    finally:
        provisioner.stop()


@dataclass
class Replayed:
    source: ParsedSource
    schedule: Schedule
    replays: list[VariantReplay]
    reports: list[FingerprintResult]
    # (variant measured next, state of every variant's server process) at each round step
    blocks: list[tuple[str, dict[str, str]]] = field(default_factory=list)


def _state(pid: int | None) -> str:
    """The process state letter of /proc/<pid>/stat (T: stopped by SIGSTOP), or "-" without a process.
    A SIGSTOP takes effect when the kernel next schedules the process: a server frozen a moment ago
    may still read R, so a state other than T is read again for up to 2 s."""
    if pid is None:
        return "-"
    deadline = time.monotonic() + 2.0
    while True:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state == "T" or time.monotonic() > deadline:
            return state
        time.sleep(0.01)


@pytest.fixture(scope="module")
def replayed(shop_dump: Path) -> Replayed:
    sha = file_sha256(shop_dump)
    source = parse_source(_capture_slow_log(shop_dump, sha))
    dataset = DumpDataset(shop_dump, sha, "shop")
    variants = [
        ReplayVariant(name, lab_provisioner(name, ports.UNIT_TARGETS[name], suffix="replay"), [])
        for name in VARIANTS
    ]
    schedule = plan("interleaved", ROUNDS, PASSES, SEED, len(variants))
    blocks: list[tuple[str, dict[str, str]]] = []

    def step(variant: str, phase: str) -> None:
        if phase.startswith("round "):
            blocks.append((variant, {v.name: _state(v.provisioner.pid()) for v in variants}))

    replays = replay_rounds(variants, dataset, source.statements, schedule, step=step)
    return Replayed(source, schedule, replays, compare(source.statements, replays), blocks)


def _report(reports: list[FingerprintResult], fingerprint: str) -> FingerprintResult:
    """The report of one fingerprint, or of the only one starting with `fingerprint` + "(" (pt's
    fingerprint: `select md?(email) ...`)."""
    found = [
        r for r in reports if r.fingerprint == fingerprint or r.fingerprint.startswith(f"{fingerprint}(")
    ]
    assert len(found) == 1, [r.fingerprint for r in reports]
    return found[0]


def _diff(report: FingerprintResult, variant: str) -> Any:
    return next(d for d in report.statements[0].diffs if d.variant == variant)


def test_slow_log_of_the_lab_server_parses_with_database_and_skips_the_write(replayed: Replayed) -> None:
    source = replayed.source
    assert source.format == "slow"
    assert len(source.statements) == len(QUERIES) - 1
    assert {s.database for s in source.statements} == {"shop"}
    # read-only mode: the UPDATE is skipped (so is the SET GLOBAL that turned the log off)
    assert "update orders set note = ? where id = ?" in [s.fingerprint for s in source.skipped_writes]


@pytest.mark.parametrize("function", ["select md?", "select sha?", "select password"])
def test_hash_functions_error_on_mysql_97_only(replayed: Replayed, function: str) -> None:
    report = _report(replayed.reports, function)
    outcomes = report.statements[0].outcomes
    assert outcomes["mariadb-10.11"].error_code is None and outcomes["mariadb-11.8"].error_code is None
    assert outcomes["mysql-9.7"].error_code is not None, outcomes["mysql-9.7"]
    assert _diff(report, "mysql-9.7").error and not _diff(report, "mariadb-11.8").error
    assert report.group == "breaks" and report.variants["mysql-9.7"].group == "breaks"
    assert _diff(report, "mysql-9.7").error_change == "new"
    assert [c.id for c in report.variants["mysql-9.7"].causes] == ["removed function"]
    assert report.variants["mariadb-11.8"].group != "breaks"  # per variant: 11.8 is not broken by it


def test_group_by_without_order_by_differs_in_order_only_on_mysql(replayed: Replayed) -> None:
    reports = replayed.reports
    unordered = _diff(_report(reports, GROUPED), "mysql-9.7")
    assert unordered.ordering_only and unordered.unordered_query and not unordered.result
    assert unordered.cause is not None and unordered.cause.id == "GROUP BY no longer sorts"
    ordered = _report(reports, f"{GROUPED} order by r")
    assert not any(d.ordering_only or d.result for d in ordered.statements[0].diffs)


def test_a_plan_changes_between_mariadb_1011_and_118(replayed: Replayed) -> None:
    reports = replayed.reports
    changed = [
        r
        for r in reports
        if any(d.plan for s in r.statements for d in s.diffs if d.variant == "mariadb-11.8")
    ]
    plans = {r.fingerprint: [o.plan for o in r.statements[0].outcomes.values()] for r in reports}
    assert changed, plans
    # MySQL's plans differ in form from MariaDB's: shown, never counted as a change
    assert not any(
        d.plan or d.plan_compared
        for r in reports
        for s in r.statements
        for d in s.diffs
        if d.variant == "mysql-9.7"
    )
    print("plan changes 10.11 -> 11.8:", *(f"{r.fingerprint}: {plans[r.fingerprint][:2]}" for r in changed))
    assert exit_bits(reports) & EXIT_PLAN_CHANGES and exit_bits(reports) & EXIT_BREAKS


def test_every_server_names_the_tables_a_statement_reads_in_its_plan(replayed: Replayed) -> None:
    # MySQL 9.7 answers EXPLAIN FORMAT=JSON in format 2 (tests/replay/test_plan_formats.py)
    for report in replayed.reports:
        if " from " not in report.fingerprint:
            continue
        for name, outcome in report.statements[0].outcomes.items():
            if outcome.error_code is None:
                assert outcome.plan, (name, report.fingerprint, outcome.plan_error)
                tables = {step.table for step in outcome.plan}
                assert tables & {"customers", "orders", "c", "o"}, (name, report.fingerprint, tables)


def test_rounds_follow_the_seeded_interleaved_schedule_with_the_others_frozen(replayed: Replayed) -> None:
    order = replayed.schedule.order
    assert len(order) == ROUNDS and all(sorted(one) == [0, 1, 2] for one in order)
    assert len({tuple(one) for one in order}) > 1  # shuffled per round, not one fixed order
    assert order == plan("interleaved", ROUNDS, PASSES, SEED, 3).order  # the seed gives the schedule back
    assert [variant for variant, _ in replayed.blocks] == [VARIANTS[i] for one in order for i in one]
    for variant, states in replayed.blocks:  # before each block every instance waits, stopped
        assert set(states.values()) == {"T"}, (variant, states)
    for replay in replayed.replays:
        assert replay.passes == PASSES and all(len(times) == ROUNDS * PASSES for times in replay.times)


def test_every_fingerprint_has_a_median_per_variant_and_a_verdict_on_rounds(replayed: Replayed) -> None:
    replays, reports = replayed.replays, replayed.reports
    assert replays[0].load is not None and replays[0].tables
    assert all(r.statistics_at is not None and r.analyzed == len(r.tables) for r in replays)  # settled first
    assert {r.clock for r in replays} == {"server"}  # on for every instance the lab starts (timing.py)
    for report in reports:
        if report.fingerprint.startswith(("select md?(", "select sha?(", "select password(")):
            continue  # no time on MySQL 9.7, where they error
        assert all(report.median_s[name] is not None for name in VARIANTS), report.fingerprint
        assert set(report.ratios) == {"mariadb-11.8", "mysql-9.7"}
        for ratio in report.ratios.values():
            assert ratio.rounds == ROUNDS and ratio.method == "paired rounds", ratio
            low, point, high, mde = ratio.low, ratio.ratio, ratio.high, ratio.mde
            assert low is not None and point is not None and high is not None and mde is not None
            assert low <= point <= high and mde >= 0
            assert ratio.verdict in VERDICTS
        verdicts = {r.verdict for r in report.ratios.values()}
        assert (report.group == "slower") <= ("regression" in verdicts), report.fingerprint
        assert (report.group == "faster") <= ("improvement" in verdicts), report.fingerprint
    print(*(f"{r.group}: {r.fingerprint[:60]} {r.ratios}" for r in reports), sep="\n")


def test_a_default_database_the_dump_lacks_is_that_statements_error(shop_dump: Path) -> None:
    dataset = DumpDataset(shop_dump, file_sha256(shop_dump), "shop")
    statements = parse_source(
        "USE shop;\nSELECT COUNT(*) FROM orders;\nUSE crm;\nSELECT COUNT(*) FROM people;"
    ).statements
    provisioner = lab_provisioner("mariadb-10.11", ports.UNIT_TARGETS["mariadb-10.11"], suffix="replay")
    variant = ReplayVariant("mariadb-10.11", provisioner, [])
    (one,) = replay_rounds([variant], dataset, statements, plan("interleaved", 2, 1, 1, 1))
    assert one.outcomes[0].row_count == 1 and one.times[0][0] is not None
    # the replay's reader holds nothing outside the dataset: access denied, whether `crm` exists or not
    assert one.outcomes[1].error_code == 1044 and "'crm'" in (one.outcomes[1].error_message or "")
    assert one.times[1] == [None, None]
    assert provisioner.pid() is None  # stopped at the end
