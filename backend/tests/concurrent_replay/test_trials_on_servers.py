"""A concurrent replay's trials measured and decided on the real servers: the read-then-write log
replayed in interleaved rounds (MariaDB 10.11, 11.8 and an A/A control on 10.11, each trial from
the same rows) is a break on 11.8, error 1020 in 5 of 5 trials, and its table ends with other data
(named), while an untouched table of varied types checksums the same on both versions; on 10.11,
11.8 and MySQL 9.7 the servers' lock counters, sampled waits and last deadlock say what a lock wait
and a deadlock did. A team's remedy proved by the same trials (run_trial, each from the kept data):
11.8 with SET GLOBAL innodb_snapshot_isolation=OFF applied after every trial's start no longer
fails with 1020 where its default does, SET SESSION on every session's connection does the same, and
a setting the server refuses fails the trial naming the variant and the setting. The server's p95
per fingerprint beside the client's: MySQL 9.7's digest histograms give it for every fingerprint,
counted as the client counted; MariaDB says why not."""

import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests import ports
from tests.conftest import STATE, lab_provisioner
from tests.replay.sessions.test_session_driver_on_servers import READ_THEN_WRITE
from upgradelab.concurrent_replay.decide import decide
from upgradelab.concurrent_replay.report import TrialRecord
from upgradelab.execution.schedule import plan
from upgradelab.measurement import (
    DumpDataset,
    LockWaitSampler,
    ServerLocks,
    SessionOpener,
    SettingRefused,
    TrialMeasure,
    VariantSettings,
    digest_p95,
    file_sha256,
    fingerprint_samples,
    last_deadlock,
    lock_counters,
    log_sessions,
    prepare_trials,
    restore_datadir,
    run_sessions,
    run_trial,
    summarize_trial,
    table_checksums,
)
from upgradelab.measurement.querylog.formats import text_stream
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.provisioners.base import Endpoint
from upgradelab.workloads.base import execute

VERSIONS = ("mariadb-10.11", "mariadb-11.8", "mysql-9.7")
# where each flavor's sampled waits are read (performance_schema is on in the lab's MySQL)
WAITS = {"mariadb": "information_schema.INNODB_LOCK_WAITS", "mysql": "performance_schema.data_lock_waits"}


@pytest.fixture(scope="module")
def servers(database: None) -> Iterator[dict[str, tuple[LocalProvisioner, Endpoint]]]:
    started: dict[str, tuple[LocalProvisioner, Endpoint]] = {}
    try:
        for name in VERSIONS:
            provisioner = lab_provisioner(name, ports.UNIT_TARGETS[name], suffix="concurrent")
            started[name] = (provisioner, provisioner.start([]))
        yield started
    finally:
        for provisioner, _ in started.values():
            provisioner.stop()


def _same_rows(endpoint: Endpoint) -> None:
    """Every trial's starting data (the test's stand-in for the kept datadir's copy)."""
    admin = endpoint.connect()
    try:
        execute(
            admin,
            "CREATE DATABASE IF NOT EXISTS shop",
            "DROP TABLE IF EXISTS shop.c, shop.d",
            "CREATE TABLE shop.c (id INT PRIMARY KEY, v INT) ENGINE = InnoDB",
            "INSERT INTO shop.c VALUES (1, 0), (2, 0)",
            "CREATE TABLE shop.d (id INT PRIMARY KEY, price DECIMAL(9, 2), at DATETIME(3), note VARCHAR(20))",
            "INSERT INTO shop.d VALUES (1, 1.50, '2026-12-06 08:00:00.125', 'a'), (2, NULL, NULL, 'b''c')",
        )
    finally:
        admin.close()


def _opener(provisioner: LocalProvisioner, endpoint: Endpoint) -> SessionOpener:
    return SessionOpener(
        connect=lambda database: endpoint.connect(database, read_timeout_s=60),
        admin=lambda: endpoint.connect(timeout_s=5, read_timeout_s=30),
        flavor=provisioner.flavor,
    )


def _trial(
    provisioner: LocalProvisioner, endpoint: Endpoint, variant: str, number: int, position: int
) -> TrialRecord:
    _same_rows(endpoint)
    log = log_sessions(text_stream(READ_THEN_WRITE), "general")
    admin = endpoint.connect()
    try:
        before = lock_counters(admin, provisioner.flavor)
        sampler = LockWaitSampler(endpoint.connect, provisioner.flavor, interval_s=0.2).start()
        run = run_sessions(log.sessions, _opener(provisioner, endpoint), speed=2, timeout_s=10)
        waits = sampler.stop()
        counters = lock_counters(admin, provisioner.flavor).since(before)
        checksums = table_checksums(admin, ["shop"])
    finally:
        admin.close()
    return TrialRecord(
        variant=variant, round=number, position=position, summary=summarize_trial(run, log.sessions),
        locks=ServerLocks(counters=counters, waits=waits, last_deadlock=None), checksums=checksums,
    )  # fmt: skip


def test_the_read_then_write_break_is_decided_over_interleaved_trials(
    servers: dict[str, tuple[LocalProvisioner, Endpoint]],
) -> None:
    variants = [("10.11", "mariadb-10.11"), ("11.8", "mariadb-11.8"), ("10.11 again", "mariadb-10.11")]
    schedule = plan("interleaved", 5, 1, 50, len(variants))
    records = [
        _trial(*servers[variants[index][1]], variants[index][0], number, position)
        for number, order in enumerate(schedule.order, start=1)
        for position, index in enumerate(order)
    ]
    report = decide([name for name, _ in variants], records, aa_control="10.11 again")
    [error] = report.errors
    assert (error.variant, error.code, error.group) == ("11.8", 1020, "breaks")
    assert error.per_trial == [1, 1, 1, 1, 1] and error.reference_appears == 0
    assert error.sample.sql == "UPDATE c SET v = v + 1 WHERE id = 1" and error.sample.thread_id == 11
    [table] = report.tables  # shop.d, untouched, hashes the same on both versions
    assert (table.variant, table.table, table.group, table.differs) == ("11.8", "shop.c", "breaks", 5)
    groups = {g.variant: g for g in report.groups}
    assert groups["11.8"].breaks == 2 and groups["10.11 again"].breaks == 0
    by_variant = {r.variant: r for r in records}
    assert by_variant["10.11"].summary.rows_changed == 2 and by_variant["11.8"].summary.rows_changed == 1
    assert by_variant["11.8"].checksums["shop.d"] == by_variant["10.11"].checksums["shop.d"]


@pytest.mark.parametrize("version", VERSIONS)
def test_lock_waits_and_a_deadlock_are_counted_and_named(
    servers: dict[str, tuple[LocalProvisioner, Endpoint]], version: str
) -> None:
    provisioner, endpoint = servers[version]
    _same_rows(endpoint)
    admin, one, two = endpoint.connect(), endpoint.connect("shop"), endpoint.connect("shop")
    try:
        before = lock_counters(admin, provisioner.flavor)
        sampler = LockWaitSampler(endpoint.connect, provisioner.flavor, interval_s=0.1).start()
        execute(one, "BEGIN", "UPDATE c SET v = 1 WHERE id = 1")
        execute(two, "BEGIN", "UPDATE c SET v = 2 WHERE id = 2")
        failures: list[BaseException] = []

        def waits() -> None:
            try:
                execute(two, "UPDATE c SET v = 2 WHERE id = 1")  # waits for one's row lock
            except Exception as error:
                failures.append(error)

        waiter = threading.Thread(target=waits)
        waiter.start()
        time.sleep(0.8)
        try:
            execute(one, "UPDATE c SET v = 1 WHERE id = 2")  # closes the cycle: one of the two is the victim
        except Exception as error:
            failures.append(error)
        waiter.join(10)
        execute(one, "ROLLBACK")
        execute(two, "ROLLBACK")
        waited = sampler.stop()
        counters = lock_counters(admin, provisioner.flavor).since(before)
        deadlock = last_deadlock(admin)
    finally:
        for connection in (admin, one, two):
            connection.close()
    assert [getattr(f, "args", (None,))[0] for f in failures] == [1213]
    assert counters.row_lock_waits >= 1 and counters.row_lock_time_ms >= 500
    assert counters.deadlocks == 1
    assert waited is not None and waited.peak >= 1 and waited.waiting >= 3
    assert WAITS[provisioner.flavor] in waited.source
    assert deadlock is not None and "UPDATE c SET v =" in deadlock and "`shop`.`c`" in deadlock


def _record(variant: str, number: int, position: int, measure: TrialMeasure) -> TrialRecord:
    return TrialRecord(
        variant=variant, round=number, position=position, summary=measure.summary, locks=measure.locks,
        checksums=measure.checksums,
    )  # fmt: skip


def test_a_setting_applied_on_every_trial_is_the_fix_proved_by_the_same_trials(
    servers: dict[str, tuple[LocalProvisioner, Endpoint]],
) -> None:
    provisioner, _ = servers["mariadb-11.8"]
    path = Path(STATE) / "settingshop.sql"
    path.write_text(
        "CREATE TABLE c (id INT PRIMARY KEY, v INT) ENGINE = InnoDB;\nINSERT INTO c VALUES (1, 0);\n"
    )
    sessions = log_sessions(text_stream(READ_THEN_WRITE), "general").sessions
    kept = prepare_trials(provisioner, [], DumpDataset(path, file_sha256(path), "shop"))
    try:  # one kept dataset, three variants differing only in what is applied after start
        variants = {
            "11.8 snapshot off": replace(
                kept,
                name="11.8 snapshot off",
                settings=VariantSettings(set_global={"innodb_snapshot_isolation": "OFF"}),
            ),
            "11.8": replace(kept, name="11.8"),
        }
        names = list(variants)
        records = [
            _record(
                names[index],
                number,
                position,
                run_trial(variants[names[index]], sessions, speed=2, timeout_s=10),
            )
            for number, order in enumerate(plan("interleaved", 5, 1, 51, 2).order, start=1)
            for position, index in enumerate(order)
        ]
        session_off = replace(
            kept,
            name="11.8 session off",
            settings=VariantSettings(set_session={"innodb_snapshot_isolation": "OFF"}),
        )
        by_session = run_trial(session_off, sessions, speed=2, timeout_s=10)
        refused = replace(
            kept, name="typo", settings=VariantSettings(set_global={"innodb_snapshot_isolaton": "OFF"})
        )
        with pytest.raises(
            SettingRefused, match=r"variant 'typo'.*SET GLOBAL innodb_snapshot_isolaton = OFF"
        ):
            run_trial(refused, sessions, speed=2, timeout_s=10)
        assert provisioner.pid() is None  # stopped after the refusal
    finally:
        restore_datadir(kept)
        provisioner.start([])  # the module's server, for the tests after this one
    report = decide(names, records)  # the remedy is the baseline: the default breaks against it
    [error] = report.errors
    assert (error.variant, error.code, error.group) == ("11.8", 1020, "breaks")
    assert error.per_trial == [1, 1, 1, 1, 1] and error.reference_appears == 0
    fixed = [r.summary for r in records if r.variant == "11.8 snapshot off"]
    assert len(fixed) == 5 and all(not s.errors and s.rows_changed == 2 for s in fixed)
    assert not by_session.summary.errors and by_session.summary.rows_changed == 2
    [table] = report.tables  # the default's row ends at 1, the remedy's at 2
    assert (table.variant, table.table, table.group) == ("11.8", "shop.c", "breaks")


# a session after the read-then-write one: pt-query-digest's one fingerprint over two tables, which
# the server's digests tell apart
TWO_TABLES = """\
\t\t    13 Connect\tapp@localhost on shop using TCP/IP
\t\t    13 Query\tSELECT v FROM t1 WHERE id = 1
\t\t    13 Query\tSELECT v FROM t2 WHERE id = 1
\t\t    13 Query\tSELECT v FROM t2 WHERE id = 2
\t\t    13 Quit\t
"""


@pytest.mark.parametrize("version", VERSIONS)
def test_the_server_p95_per_fingerprint_is_read_beside_the_clients_or_said_unavailable(
    servers: dict[str, tuple[LocalProvisioner, Endpoint]], version: str
) -> None:
    provisioner, endpoint = servers[version]
    _same_rows(endpoint)
    sessions = log_sessions(text_stream(READ_THEN_WRITE + TWO_TABLES), "general").sessions
    admin = endpoint.connect()
    try:
        execute(
            admin, *(f"CREATE TABLE IF NOT EXISTS shop.{t} (id INT PRIMARY KEY, v INT)" for t in ("t1", "t2"))
        )
        if provisioner.flavor == "mysql":  # the server ran the other tests' statements: this trial's only
            execute(
                admin,
                "TRUNCATE TABLE performance_schema.events_statements_summary_by_digest",
                "TRUNCATE TABLE performance_schema.events_statements_histogram_by_digest",
            )
        run = run_sessions(sessions, _opener(provisioner, endpoint), speed=4, timeout_s=10)
        server = digest_p95(admin, fingerprint_samples(run, sessions, "shop"))
    finally:
        admin.close()
    summary = summarize_trial(run, sessions, server)
    assert summary.server_clock == server.clock
    if provisioner.flavor == "mariadb":  # the lab's MariaDB runs without performance_schema
        assert server.clock == "server clock not available: performance_schema is OFF on this server"
        assert all(f.server_p95_s is None for f in summary.latencies)
        return
    assert server.clock.startswith("performance_schema events_statements_histogram_by_digest")
    assert {f.fingerprint for f in summary.latencies} >= {"begin", "commit", "select v from c where id = ?"}
    tables = next(f for f in summary.latencies if f.fingerprint == "select v from t? where id = ?")
    assert tables.statements == 3  # one fingerprint (pt's), two digests (the server's): both read
    for latency in summary.latencies:  # every fingerprint, counted as the client counted it
        assert latency.server_statements == latency.statements + latency.errors, latency
        assert latency.server_p95_s is not None and 0 < latency.server_p95_s < 5, latency
