"""The server's clock and the null statement on real servers (MariaDB 10.11, whose performance_schema
is OFF by default): every instance the lab starts for a replay has it ON and is timed by TIMER_WAIT,
a variant whose own options turn it off is timed by the client's clock and compared on the client's
clock of both, and `DO 0` is timed on every variant, its per-statement cost in the report. Mechanics
only: two short rounds, no timing effect judged (tests/replay/test_statement_cost.py decides on
seeded numbers)."""

import math
import os
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from tests import ports
from upgradelab.db import sync_session
from upgradelab.execution.schedule import plan
from upgradelab.measurement.dataset_load import DumpDataset, file_sha256
from upgradelab.measurement.engine import ReplayVariant, VariantReplay, replay_rounds
from upgradelab.measurement.sources import SourceStatement, parse_source
from upgradelab.measurement.statement_cost import NULL_SQL
from upgradelab.replay.compare import compare
from upgradelab.replay.document import report_document
from upgradelab.replay.report import ReplayReport
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners.local import LocalProvisioner

QUERIES = "SELECT COUNT(*) FROM customers WHERE id = 3;\nSELECT 1 AS one;\n"
NAMES = ["mariadb-10.11", "mariadb-10.11 without performance_schema"]


def _provisioner(slot: int) -> LocalProvisioner:
    """Slot `slot` of MariaDB 10.11 as the replay tests' target (slot 0 on its port, others free ports)."""
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one()
    settings = {**target.settings.stored(), "port": ports.UNIT_TARGETS["mariadb-10.11"]}
    return LocalProvisioner("mariadb-10.11-replay", target.flavor, settings, get_settings(), slot)


@pytest.fixture(scope="module")
def replayed(shop_dump: Path, database: None) -> tuple[list[SourceStatement], list[VariantReplay]]:
    dataset = DumpDataset(shop_dump, file_sha256(shop_dump), "shop")
    statements = parse_source(QUERIES).statements
    variants = [
        ReplayVariant(NAMES[0], _provisioner(0), []),
        ReplayVariant(NAMES[1], _provisioner(1), ["performance_schema=OFF"]),  # the variant's own wins
    ]

    def sample(name: str, phase: str) -> None:
        """At each round's first step: the CPUs of this thread and of every thread of each server."""
        if phase.startswith("round "):
            servers = [variant.provisioner.pid() for variant in variants]
            threads = [
                os.sched_getaffinity(int(task.name))
                for pid in servers
                if pid is not None
                for task in Path(f"/proc/{pid}/task").iterdir()
            ]
            CPUS.append((os.sched_getaffinity(0), threads, [pid for pid in servers if pid is not None]))
        del name

    BEFORE.update(os.sched_getaffinity(0))
    return statements, replay_rounds(
        variants, dataset, statements, plan("interleaved", 2, 1, 1, 2), step=sample
    )


CPUS: list[tuple[set[int], list[set[int]], list[int]]] = []  # sampled in the rounds (replayed's `sample`)
BEFORE: set[int] = set()  # this thread's CPUs before the replay


def test_lab_instances_are_timed_by_the_servers_clock_unless_a_variant_turns_it_off(
    replayed: tuple[list[SourceStatement], list[VariantReplay]],
) -> None:
    _, replays = replayed
    assert [r.clock for r in replays] == ["server", "client"]
    assert [r.performance_schema for r in replays] == [True, False]
    for replay in replays:  # the client's time of every pass is kept, for a pair on different clocks
        assert [len(row) for row in replay.client_times] == [len(row) for row in replay.times]
        assert all(t is not None and 0 < t < 1 for row in replay.client_times for t in row)
    # TIMER_WAIT lies within the client's time of the same run: never above it (a pass's value is a
    # median of runs, and a run whose history row was not its statement counts the client's time, so
    # equal is possible); below it in some pass, or the server's clock was never read
    server = replays[0]
    pairs = [
        (s, c)
        for row, client_row in zip(server.times, server.client_times, strict=True)
        for s, c in zip(row, client_row, strict=True)
    ]
    assert all(s is not None and c is not None and s <= c for s, c in pairs), pairs
    assert any(s is not None and c is not None and s < c for s, c in pairs), pairs


def test_the_null_statement_is_timed_in_every_round_on_every_variant(
    replayed: tuple[list[SourceStatement], list[VariantReplay]],
) -> None:
    statements, replays = replayed
    for replay in replays:
        assert replay.null_statement == len(statements)
        assert len(replay.outcomes) == len(replay.times) == len(statements) + 1
        assert replay.outcomes[len(statements)].kind == "ran"
        null = replay.times[len(statements)]
        assert len(null) == 2 and all(t is not None and 0 < t < 1 and math.isfinite(t) for t in null)


def test_the_report_opens_with_the_per_statement_cost_per_variant_on_the_pairs_clock(
    replayed: tuple[list[SourceStatement], list[VariantReplay]],
) -> None:
    statements, replays = replayed
    reports = compare(statements, replays)
    assert [r.fingerprint for r in reports] == [s.fingerprint for s in statements]  # DO 0 is not listed
    document = report_document(statements, replays, reports)
    again = ReplayReport.model_validate_json(document.model_dump_json())  # as stored and read back
    assert again == document
    costs = again.per_statement_cost
    assert [c.variant for c in costs] == NAMES[1:] and {c.sql for c in costs} == {NULL_SQL}
    assert [c.clock for c in costs] == ["client"]  # the baseline's server clock, the variant's none
    for cost in costs:
        assert isinstance(cost.median_s, float) and isinstance(cost.baseline_s, float)
        assert isinstance(cost.difference_us, float) and isinstance(cost.difference_low_us, float)
        assert isinstance(cost.difference_high_us, float) and cost.ratio is not None
        assert cost.ratio.rounds == 2 and cost.ratio.verdict == "insufficient rounds"
        assert cost.text.startswith("every statement costs ") and cost.variant in cost.text
    for report in again.fingerprints:
        (finding,) = report.variants.values()
        assert finding.clock == "client" and finding.per_statement_cost_only is False  # 2 rounds: no verdict
        # None when a round's change of DO 0 exceeds the fingerprint's whole time (statement_cost.py)
        assert finding.net is None or finding.net.rounds == 2
    assert [v.performance_schema for v in again.variants] == [True, False]
    assert again.timing is not None and "performance_schema ON on" in again.timing


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="this machine gives one CPU")
def test_the_client_and_every_server_share_one_cpu_while_timed_and_the_client_gets_every_cpu_back(
    replayed: tuple[list[SourceStatement], list[VariantReplay]],
) -> None:
    """execution/timing_cpu.py in a replay: in every round this thread and every thread of both
    servers were on the one CPU the report names (the highest free one: the gate's other sessions
    replay at the same time and may hold a claim); when every CPU was claimed by them, none was
    pinned and the report says so. After the replay this thread has its CPUs back (the servers are
    stopped by then: `unpin` is tested in tests/execution/test_timing_cpu.py)."""
    _, replays = replayed
    assert os.sched_getaffinity(0) == BEFORE and len(BEFORE) >= 2
    assert CPUS, "no round was sampled"
    (text,) = {r.timing_cpu for r in replays}
    assert text is not None
    document = report_document(*replayed, compare(*replayed))
    assert document.timing is not None and text in document.timing
    pinned = re.fullmatch(r"the client and every variant's server on CPU (\d+) while timed \(.*\)", text)
    if pinned is None:  # every CPU held by the other sessions' replays
        assert "taken by another job's timing" in text, text
        expected = BEFORE
    else:
        expected = {int(pinned.group(1))}
        assert expected <= BEFORE
    for client, threads, servers in CPUS:
        assert len(servers) == 2 and client == expected
        assert threads and all(one == expected for one in threads), threads
