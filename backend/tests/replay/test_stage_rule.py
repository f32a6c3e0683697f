"""Stages: a run's stage rows read, tallied per pass, summed per fingerprint, and the rule that names
a stage as a slower or faster query's cause, decided against seeded simulated servers (the real
servers' stage events: test_findings_on_servers.py). The rule is timed, like the time verdicts: an
interval over the paired rounds beyond 1 +/- 10 %, the query's own (Bonferroni across its stages),
outside the A/A control's interval of the stage, and at least 10 % of the query's change; across
flavors by phase."""

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import numpy as np
import pytest

from upgradelab.api.replay import csv_rows
from upgradelab.measurement import THRESHOLD as QUERY_THRESHOLD
from upgradelab.measurement import CounterChange, CounterRange
from upgradelab.measurement.engine import VariantReplay
from upgradelab.measurement.outcomes import Outcome, PlanStep
from upgradelab.measurement.sources import parse_source
from upgradelab.measurement.stage_events import (
    CPU,
    OUTSIDE,
    STAGE_OPTIONS,
    RunStages,
    StageTally,
    history_query,
    history_size,
    middle,
    run_stages,
    stage_name,
)
from upgradelab.measurement.timing import (
    CLOCK_OPTIONS,
    ServerClock,
    StageSpread,
    StatementEvent,
    clock_options,
    timed_runs,
)
from upgradelab.replay import stages
from upgradelab.replay.change_causes import change_cause
from upgradelab.replay.compare import compare
from upgradelab.replay.document import report_document
from upgradelab.replay.report import StageChange
from upgradelab.replay.stages import PHASES, SHARE, THRESHOLD, StageRounds, stage_changes
from upgradelab.targets.provisioners.base import ServerConnection

ROUNDS, PASSES = 20, 2
US = 1e-6
# A SELECT's stages on MariaDB (us per execution), the shape a lab instance gives
SELECT = {"starting": 10.0, "opening tables": 4.0, "init": 7.0, "optimizing": 12.0, "statistics": 20.0,
          "preparing": 7.0, "sending data": 35.0, "freeing items": 1.0, "query end": 0.2}  # fmt: skip


def test_the_lab_turns_stage_events_on_with_the_clock_and_an_existing_server_is_left_alone() -> None:
    assert set(STAGE_OPTIONS) <= set(CLOCK_OPTIONS)
    assert "performance-schema-instrument=stage/%=ON" in STAGE_OPTIONS  # no quote: an option line
    assert clock_options("existing") == [] and not set(STAGE_OPTIONS) & set(clock_options("local", False))
    assert history_size(2, 158, 64) == 64
    assert history_size(1, 158, 64) is None and history_size(2, 0, 64) is None  # a consumer off; untimed
    query = history_query(("ROWS_EXAMINED",))  # one query, the statement's row and its stage rows
    assert query.count("SELECT") == 2 and "UNION ALL" in query and "NESTING_EVENT_ID" in query


def test_a_runs_stages_sum_a_stage_entered_twice_and_say_what_they_do_not_cover() -> None:
    assert stage_name("stage/sql/Sending data") == "sending data"
    assert stage_name("stage/sql/optimizing") == "optimizing"
    rows = [("stage/sql/Query end", 1_000_000), ("stage/sql/Sending data", 30_000_000),
            ("stage/sql/Query end", 2_000_000), ("stage/sql/closing tables", None)]  # fmt: skip
    found = run_stages(rows, 40e-6, 64, cpu_s=25e-6)
    assert found.seconds["query end"] == pytest.approx(3e-6)
    assert found.seconds["sending data"] == pytest.approx(30e-6)
    assert found.seconds[OUTSIDE] == pytest.approx(7e-6) and found.seconds[CPU] == pytest.approx(25e-6)
    assert not found.full and run_stages(rows, 40e-6, 4).full  # the history was full: some may be lost
    assert run_stages(rows, 1e-6, 64).seconds[OUTSIDE] == 0  # never below 0


def test_a_tally_keeps_one_value_per_stage_per_pass_from_the_middle_half_of_its_runs() -> None:
    tally = StageTally()
    tally.add_pass([RunStages({"a": 1.0, "b": 6.0}), RunStages({"a": 3.0, "b": 6.0}), RunStages({"a": 2.0})])
    tally.add_pass([])  # a pass not timed
    tally.add_pass([RunStages({"a": 4.0, "c": 2.0, CPU: 1.5}, full=True)])
    assert len(tally) == 3 and list(tally.read) == [1, 0, 1]
    assert [tally.value("a", k) for k in range(3)] == [2.0, 0.0, 4.0]
    assert [tally.value("b", k) for k in range(3)] == [4.0, 0.0, 0.0]  # (6 + 6 + 0) / 3: means add up
    assert tally.value("c", 0) == 0.0 and tally.value("c", 2) == 2.0  # a stage first met later
    assert math.isnan(tally.value(CPU, 0)) and tally.value(CPU, 2) == 1.5  # CPU: none where no run had it
    assert tally.executions == 4 and tally.incomplete == 1
    tally.cut(1)
    assert len(tally) == 1 and all(len(column) == 1 for column in tally.values.values())
    # eight runs: the fastest and the slowest two left out, as a median leaves them; the stages of
    # the middle four add up to their mean time
    runs = [RunStages({"x": t, "y": 1.0}) for t in (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 90.0, 100.0)]
    assert middle(runs) == runs[2:6]
    one = StageTally()
    one.add_pass(runs)
    assert one.value("x", 0) == 4.5 and one.value("y", 0) == 1.0


def _simulated(
    per_stage_us: dict[str, float],
    rng: np.random.Generator,
    drift: np.ndarray,
    noise: float | dict[str, float] = 0.05,
) -> StageRounds:
    """A fingerprint's StageRounds on a simulated server: per pass each stage's time times the round's
    drift (shared by the variants of a round: what the machine did then) and its own lognormal noise."""
    names = list(per_stage_us)
    sd = np.array([noise if isinstance(noise, float) else noise.get(name, 0.05) for name in names])
    values = (
        np.array([per_stage_us[name] for name in names]) * US
        * drift[:, None, None] * np.exp(rng.normal(0, 1, (ROUNDS, PASSES, len(names))) * sd)
    )  # fmt: skip
    totals = values.sum(axis=2)
    return StageRounds(
        total={r + 1: totals[r].tolist() for r in range(ROUNDS)},
        stages={
            name: {r + 1: values[r, :, i].tolist() for r in range(ROUNDS)} for i, name in enumerate(names)
        },
    )


def _trial(
    seed: int, variant_us: dict[str, float], noise: float | dict[str, float] = 0.05
) -> list[StageChange]:
    """A slower finding's stage changes: a seeded baseline, an A/A control and a variant."""
    rng = np.random.default_rng(seed)
    drift = np.exp(rng.normal(0, 0.1, ROUNDS))
    base = _simulated(SELECT, rng, drift, noise)
    aa = _simulated(SELECT, rng, drift, noise)
    return stage_changes(base, _simulated(variant_us, rng, drift, noise), "slower", aa)


def test_a_planted_stage_is_named_and_the_others_are_not() -> None:
    """optimizing 12 -> 48 us in a ~100 us query, every stage with 5-30 % noise per pass: named in at
    least 95 % of 100 seeded trials, a stage that did not move in at most 5 % (any of them)."""
    planted = {**SELECT, "optimizing": 48.0}
    noise = {**dict.fromkeys(SELECT, 0.05), "freeing items": 0.3, "query end": 0.3}
    named = false = 0
    for seed in range(100):
        found = _trial(seed, planted, noise)
        moved = {c.stage for c in found if c.moved}
        named += "optimizing" in moved
        false += bool(moved - {"optimizing"})
    assert named >= 95 and false <= 5, (named, false)
    change = next(c for c in _trial(1, planted, noise) if c.stage == "optimizing")
    assert re.fullmatch(r"optimizing 1[12](\.\d)? -> 4\d(\.\d)? us, [34]\.\dx", change.text), change.text
    assert change.ratio is not None and change.ratio.verdict == "regression" and change.share is not None
    assert change.share > 0.9  # all of the query's change went there


def test_an_aa_pair_names_no_stage_in_95_percent_of_trials_even_with_noisy_stages() -> None:
    """Two instances of one server: however noisy a small stage is (30-60 % a pass), the Bonferroni
    share of the 95 % keeps a stage named by chance to at most 5 % of 100 trials (each asked as if
    the pair were a finding the way its total moved)."""
    noise = {**dict.fromkeys(SELECT, 0.1), "freeing items": 0.6, "query end": 0.6, "init": 0.3}
    false = 0
    for seed in range(100):
        rng = np.random.default_rng(1000 + seed)
        drift = np.exp(rng.normal(0, 0.1, ROUNDS))
        base = _simulated(SELECT, rng, drift, noise)
        again = _simulated(SELECT, rng, drift, noise)
        way = "slower" if stages._median(again.total) > stages._median(base.total) else "faster"
        false += any(c.moved for c in stage_changes(base, again, way))  # type: ignore[arg-type]
    assert false <= 5, false


def test_a_stage_within_the_aa_controls_own_scatter_is_not_named() -> None:
    """An instance effect: "opening tables" 2x on any second instance of the server (the A/A control
    shows it too). The variant's 2x there lies inside the A/A interval: not named; without the
    control it would be (its share of the change clears SHARE)."""
    rng = np.random.default_rng(7)
    drift = np.exp(rng.normal(0, 0.1, ROUNDS))
    other_instance = {**SELECT, "opening tables": 8.0}
    base = _simulated(SELECT, rng, drift)
    aa = _simulated(other_instance, rng, drift)
    variant = _simulated({**other_instance, "sending data": 45.0}, rng, drift)
    moved = {c.stage for c in stage_changes(base, variant, "slower", aa) if c.moved}
    assert moved == {"sending data"}
    assert "opening tables" in {c.stage for c in stage_changes(base, variant, "slower") if c.moved}


def test_a_tiny_stage_that_triples_is_not_where_the_time_went() -> None:
    """query end 0.2 -> 0.6 us (3x, decided) while sending data takes 35 -> 60 us: its share of the
    change is under SHARE, so only sending data is named."""
    found = _trial(3, {**SELECT, "query end": 0.6, "sending data": 60.0})
    end = next((c for c in found if c.stage == "query end"), None)
    assert [c.stage for c in found if c.moved] == ["sending data"]
    assert end is None or (end.share is not None and end.share < SHARE)
    assert THRESHOLD == QUERY_THRESHOLD == 0.10 and SHARE == 0.10  # as documented (README, stages.py)


def test_a_stage_entered_only_on_the_variant_is_named_within_a_flavor_and_shown_across() -> None:
    rng = np.random.default_rng(11)
    drift = np.exp(rng.normal(0, 0.1, ROUNDS))
    base = _simulated(SELECT, rng, drift)
    variant = _simulated({**SELECT, "creating sort index": 30.0}, rng, drift)
    (sort,) = [c for c in stage_changes(base, variant, "slower") if c.stage == "creating sort index"]
    assert sort.moved and sort.ratio is None and sort.text.endswith("(only on the variant)")
    across = stage_changes(base, variant, "slower", same_flavor=False)
    assert not any(c.moved for c in across if c.stage == "creating sort index")


def test_across_flavors_stages_are_compared_by_phase_not_by_name() -> None:
    """MariaDB times a GROUP BY's cleanup outside any stage, MySQL in "freeing items"; its execution
    in "sending data", MySQL in "executing" (measured: bench/README.md, replay_app_case.py). By name
    "freeing items" moved 1,300x here; by phase only "execute" did, the query's real change."""
    rng = np.random.default_rng(13)
    drift = np.exp(rng.normal(0, 0.1, ROUNDS))
    mariadb_stages = {**SELECT, "freeing items": 0.03, OUTSIDE: 40.0, "executing": 0.5}
    mysql_stages = {k: v for k, v in SELECT.items() if k != "sending data"} | {
        "executing": 70.0, "freeing items": 40.0, CPU: 150.0,  # MySQL's CPU_TIME; MariaDB has none
    }  # fmt: skip
    mariadb, mysql = _simulated(mariadb_stages, rng, drift), _simulated(mysql_stages, rng, drift)
    found = stage_changes(mariadb, mysql, "slower", same_flavor=False)
    assert {c.stage for c in found if c.moved} == {"execute"}
    assert {c.stage for c in found} <= {*PHASES, "execute"}  # no stage name, no CPU time (one side only)
    execute = next(c for c in found if c.stage == "execute")
    assert execute.base_s == pytest.approx(35.5e-6, rel=0.1)
    end = next((c for c in found if c.stage == "end"), None)
    assert end is None or not end.moved
    cause = change_cause("slower", [], None, [], stages=found, same_flavor=False)
    assert cause is not None
    assert re.match(r"time in stages \(by phase across MySQL and MariaDB\): execute 3\d", cause.text), (
        cause.text
    )
    by_name = stage_changes(mariadb, mysql, "slower")  # what comparing names across flavors said
    assert "freeing items" in {c.stage for c in by_name if c.moved}


def test_the_cause_names_the_stages_that_moved_after_counters_and_time_only_shows_them() -> None:
    rng = np.random.default_rng(17)
    drift = np.exp(rng.normal(0, 0.1, ROUNDS))
    base = _simulated(SELECT, rng, drift)
    moved = stage_changes(base, _simulated({**SELECT, "optimizing": 48.0}, rng, drift), "slower")
    cause = change_cause("slower", [], None, [], stages=moved)
    assert cause is not None and cause.kind == "stage"
    assert cause.text.startswith("time in stages: optimizing 1")
    # 5 % more in every stage: none beyond the threshold (a query 5 % slower is no finding either; the
    # cause is asked here of the rule alone)
    spread = stage_changes(base, _simulated({k: v * 1.05 for k, v in SELECT.items()}, rng, drift), "slower")
    assert not any(c.moved for c in spread) and len(spread) == stages.SHOWN
    still = change_cause("slower", [], None, [], stages=spread)
    assert still is not None and still.kind == "time only"
    assert still.text.startswith("time only: no counter or stage moved (stages: ")
    # without stage events (the client's clock, a server keeping none): the sentence as before
    before = change_cause("slower", [], None, [], stages=None)
    assert before is not None and before.text == "time only: no counter moved"
    rows = CounterChange(
        counter="rows_examined", label="rows examined", base=CounterRange(mean=100, low=100, high=100),
        other=CounterRange(mean=900, low=900, high=900), ratio=9, moved=True,
        text="rows examined 100 -> 900, 9x",
    )  # fmt: skip
    work = change_cause("slower", [], None, [rows], stages=moved)  # a moved counter comes first
    assert work is not None and work.kind == "work"


OUTCOME = Outcome(None, None, row_count=1, checksum_ordered="o", checksum_unordered="u",
                  plan=[PlanStep("t", "ref", "k", 1.0)])  # fmt: skip


def _replay(name: str, statements: int, per_stage: list[dict[str, float]], seed: int) -> VariantReplay:
    """A server-clock VariantReplay whose statements' times are their simulated stages' sums, each
    pass's stages tallied as the engine tallies them."""
    rng = np.random.default_rng(seed)
    replay = VariantReplay(name, "1", None, [], [OUTCOME] * statements, [[] for _ in range(statements)])
    replay.flavor, replay.clock, replay.passes, replay.stage_events = "mariadb", "server", PASSES, True
    replay.stages = [StageTally() for _ in range(statements)]
    drift = np.exp(np.random.default_rng(seed // 10).normal(0, 0.1, ROUNDS))
    for index in range(statements):
        for number in range(ROUNDS):
            for _ in range(PASSES):
                run = {
                    k: v * US * drift[number] * float(np.exp(rng.normal(0, 0.05)))
                    for k, v in per_stage[index].items()
                }
                replay.times[index].append(sum(run.values()))
                replay.stages[index].add_pass([RunStages(run)])
    return replay


def test_through_compare_a_slower_query_no_counter_explains_names_a_stage_and_the_aa_gains_nothing() -> None:
    statements = parse_source("SELECT COUNT(*) FROM orders;\nSELECT COUNT(*) FROM items;\n").statements
    slower = [dict(SELECT), {**SELECT, "optimizing": 60.0}]
    base = _replay("a", 2, [SELECT, SELECT], 20)
    aa = _replay("a (A/A)", 2, [SELECT, SELECT], 21)
    variant = _replay("b", 2, slower, 22)
    replays = [base, variant, aa]
    reports = compare(statements, replays, aa_control="a (A/A)")
    finding = reports[1].variants["b"]
    assert finding.group == "slower" and finding.cause is not None and finding.cause.kind == "stage"
    assert finding.cause.text.startswith("time in stages: optimizing")
    assert [f.kind for f in finding.findings] == ["slower"] and finding.findings[0].cause == finding.cause
    assert set(reports[1].stages) == {"a", "b", "a (A/A)"}
    times = reports[1].stages["b"]
    assert next(iter(times.stages)) == "optimizing" and times.executions == ROUNDS * PASSES
    assert times.total_s == pytest.approx(sum(SELECT.values()) * US + 48 * US, rel=0.1)
    # the stage rule names causes, never a finding: the same findings without it
    without = compare(statements, replays, aa_control="a (A/A)", with_stages=False)
    for one, other in zip(reports, without, strict=True):
        for name in ("b", "a (A/A)"):
            kinds = [f.kind for f in other.variants[name].findings]
            assert [f.kind for f in one.variants[name].findings] == kinds
    assert all(not r.variants["a (A/A)"].findings for r in reports)
    document = report_document(statements, replays, reports, aa_control="a (A/A)")
    assert document.stages is not None and document.stages.startswith("Time by stage per execution")
    assert all(v.stages for v in document.variants)
    assert document.summary[0].slower_causes == {"stage": 1}
    rows = csv_rows(document)
    row = next(r for r in rows if r["variant"] == "b" and r["fingerprint_id"] == reports[1].fingerprint_id)
    assert row["stages_moved"].startswith("optimizing") and '"optimizing"' in row["stage_times"]


class _History:
    """The server's answer to a read with stages: the newest statement row (marked 0) and the thread's
    stage rows newer than the last statement read (marked 1), a previous statement's among them."""

    def __init__(self) -> None:
        self.arguments: list[object] = []

    @contextmanager
    def cursor(self) -> Iterator["_History"]:
        yield self

    def execute(self, sql: str, args: Any = None) -> None:
        assert "UNION ALL" in sql
        self.arguments.append(args)

    def fetchall(self) -> list[tuple[object, ...]]:
        return [
            (0, 12, 9_000_000, "SELECT 1", 40),
            (1, 11, 500_000, "stage/sql/starting", None),  # the SET before it: not its stage
            (1, 12, 2_000_000, "stage/sql/starting", None),
            (1, 12, 5_000_000, "stage/sql/Sending data", None),
        ]


def test_a_run_reads_its_own_stages_with_its_statement_row_in_one_query() -> None:
    history = _History()
    clock = ServerClock(cast(ServerConnection, history), 7, columns=("ROWS_EXAMINED",), stage_size=64)
    clock.event_id = 10
    event = clock.last("SELECT 1", stages=True)
    assert history.arguments == [(7, 7, 10)]  # one read: the statement and the stages newer than 10
    assert event is not None and event.stages is not None and event.counters == {"rows_examined": 40.0}
    assert event.stages.seconds == pytest.approx({"starting": 2e-6, "sending data": 5e-6, OUTSIDE: 2e-6})
    assert clock.event_id == 12


def test_a_pass_reads_the_stages_of_runs_spread_over_it_and_times_every_run() -> None:
    """settings `replay_stage_runs`: a read with stages costs the timing CPU ~0.3 ms more, and a fast
    statement runs up to 200 times a pass; the pass reads the stages of N runs spread over its runs
    and its time budget (timing.StageSpread), not its first N (slower than the rest)."""

    class _Clock:
        def __init__(self) -> None:
            self.asked: list[bool] = []

        def last(self, sql: str, stages: bool = False) -> StatementEvent:
            self.asked.append(stages)
            return StatementEvent(
                1e-4, {}, RunStages({"sending data": 6e-5, OUTSIDE: 4e-5}) if stages else None
            )

    class _Statements:
        routines = True  # (outcomes.Statements: may call a routine, made read-only before every run)

        def drain(self, sql: str) -> tuple[int, float]:
            return 0, 1e-4

    clock, collected = _Clock(), cast(list[RunStages], [])
    runs = timed_runs(
        cast(Any, _Statements()), "SELECT 1", cast(Any, clock), 1.0, 6, stages=collected, stage_runs=2
    )
    assert runs == [1e-4] * 6 and len(collected) == 2
    assert clock.asked == [True, False, False, True, False, False]  # every 6 // 2 runs
    # by the budget: 1 ms a run of a 10 ms budget, 2 reads a pass: every 5 ms
    spread = StageSpread(2, 0.010, 200)
    assert [spread.due(run, run * 0.001) for run in range(10)] == [True, *[False] * 4, True, *[False] * 4]
    clock.asked.clear()
    timed_runs(cast(Any, _Statements()), "SELECT 1", cast(Any, clock), 1.0, 3, stages=[], stage_runs=None)
    assert clock.asked == [True, True, True]  # 0 in the setting: every run
