"""Work counters and the cause of every change, decided on fixed numbers with the real functions (the
counters read from a real server: test_work_counters_on_server.py): a counter kept per statement as
min / max / sum, summed per fingerprint over the statements counted on every variant, moved only past
1.5x and its minimum with the ranges apart, and the cause chain in its order: known cause, plan
change, work, per-statement cost, time only."""

import numpy as np
import pytest

from upgradelab.api.replay import csv_rows
from upgradelab.cli.replay import summary_lines
from upgradelab.measurement import Cause, CounterChange, CounterRange
from upgradelab.measurement.counters import (
    MOVED_FACTOR,
    UNAVAILABLE_TEXT,
    WORK_TEXT,
    WorkTally,
    change,
    changes,
    event_counters,
    fingerprint_work,
    history_columns,
)
from upgradelab.measurement.engine import VariantReplay
from upgradelab.measurement.outcomes import Outcome, PlanStep
from upgradelab.measurement.sources import parse_source
from upgradelab.replay.change_causes import attribute, change_cause, direction, plan_parts
from upgradelab.replay.compare import compare
from upgradelab.replay.document import report_document

MARIADB_HISTORY = [
    "THREAD_ID",
    "EVENT_ID",
    "TIMER_WAIT",
    "SQL_TEXT",
    "ROWS_EXAMINED",
    "ROWS_SENT",
    "CREATED_TMP_TABLES",
    "CREATED_TMP_DISK_TABLES",
    "SELECT_FULL_JOIN",
    "SELECT_SCAN",
    "SORT_ROWS",
    "SORT_MERGE_PASSES",
    "NO_INDEX_USED",
    "NO_GOOD_INDEX_USED",
]


def _tally(*runs: dict[str, float]) -> WorkTally:
    tally = WorkTally()
    for run in runs:
        tally.add(run)
    return tally


def _range(mean: float, low: float | None = None, high: float | None = None) -> CounterRange:
    return CounterRange(mean=mean, low=mean if low is None else low, high=mean if high is None else high)


def test_the_server_says_which_counters_it_has_and_cpu_time_only_where_it_exists() -> None:
    mariadb = history_columns(MARIADB_HISTORY)
    assert "CPU_TIME" not in mariadb and len(mariadb) == 9 and mariadb[0] == "ROWS_EXAMINED"
    mysql = history_columns([*MARIADB_HISTORY, "cpu_time", "MAX_TOTAL_MEMORY"])
    assert mysql == (*mariadb, "CPU_TIME")
    # CPU_TIME in picoseconds, reported in seconds; a NULL (its timing off) left out
    assert event_counters(("ROWS_EXAMINED", "CPU_TIME"), (16049, 2_500_000_000)) == {
        "rows_examined": 16049.0,
        "cpu_time_s": pytest.approx(0.0025),
    }
    assert event_counters(("ROWS_EXAMINED", "CPU_TIME"), (3, None)) == {"rows_examined": 3.0}


def test_a_tally_keeps_min_max_and_sum_not_the_runs() -> None:
    tally = _tally(*({"rows_examined": float(v), "select_scan": 1.0} for v in (10, 30, 20, 20)))
    assert tally.executions == 4 and tally.low["rows_examined"] == 10 and tally.high["rows_examined"] == 30
    assert tally.total["rows_examined"] == 80 and tally.total["select_scan"] == 4
    many = _tally(*({"rows_examined": float(i % 7)} for i in range(10_000)))
    assert many.executions == 10_000 and len(many.total) == 1  # bounded: one sum per counter


def test_a_fingerprint_sums_its_statements_counted_on_every_variant_with_ranges() -> None:
    a1 = _tally({"rows_examined": 100.0, "sort_rows": 5.0}, {"rows_examined": 100.0, "sort_rows": 5.0})
    a2 = _tally({"rows_examined": 40.0, "sort_rows": 0.0}, {"rows_examined": 60.0, "sort_rows": 0.0})
    b1 = _tally({"rows_examined": 900.0, "sort_rows": 5.0})
    b2 = _tally({"rows_examined": 50.0, "sort_rows": 0.0})
    lone = _tally({"rows_examined": 7.0})
    work = fingerprint_work({"a": [a1, a2, lone], "b": [b1, b2, None]})  # the third: not counted on b
    assert work["a"].statements == 2 and work["a"].executions == 4 and work["b"].executions == 2
    assert work["a"].counters["rows_examined"] == _range(150, 140, 160)  # 100 + mean(40, 60); a range
    assert work["b"].counters["rows_examined"] == _range(950)
    # a variant on the client's clock counted nothing: the others compare among themselves
    assert set(fingerprint_work({"a": [a1], "b": [b1], "c": [WorkTally()]})) == {"a", "b"}
    assert fingerprint_work({"a": [a1], "b": [WorkTally()]}).keys() == {"a"}
    assert fingerprint_work({"a": [a1, None], "b": [None, b2]}) == {}  # no statement counted on both
    assert fingerprint_work({}) == {}


@pytest.mark.parametrize(
    ("name", "base", "other", "moved"),
    [
        ("rows_examined", _range(16049), _range(802450), True),
        ("rows_examined", _range(1000), _range(1490), False),  # under 1.5x (MOVED_FACTOR)
        ("rows_examined", _range(1000), _range(1500), True),
        ("rows_examined", _range(1500), _range(1000), True),  # fewer: the same factor down
        ("rows_examined", _range(3), _range(70), False),  # 23x, but under 100 rows
        ("rows_examined", _range(1000, 200, 3000), _range(2000, 1500, 2500), False),  # ranges overlap
        ("created_tmp_disk_tables", _range(0), _range(1), True),  # from 0: any, at least 1
        ("created_tmp_tables", _range(0), _range(0.5, 0, 1), False),  # half a table: under 1
        ("select_scan", _range(2), _range(1), True),  # 2x fewer, by 1: moved down
        ("cpu_time_s", _range(0.001), _range(0.1), False),  # a time: never a cause
    ],
)
def test_a_counter_moves_past_one_and_a_half_and_its_minimum_with_ranges_apart(
    name: str, base: CounterRange, other: CounterRange, moved: bool
) -> None:
    assert MOVED_FACTOR == 1.5  # the documented threshold (README, counters.py)
    assert change(name, base, other).moved is moved


def test_the_change_reads_as_the_issue_writes_it() -> None:
    assert change("rows_examined", _range(16049), _range(802450)).text == (
        "rows examined 16,049 -> 802,450, 50x"
    )
    assert change("rows_examined", _range(802450), _range(16049)).text.endswith(", 50x fewer")
    assert change("created_tmp_disk_tables", _range(0), _range(1)).text == "temporary tables on disk 0 -> 1"
    varying = change("rows_examined", _range(100), _range(150, 100, 200))
    assert varying.text == "rows examined 100 -> 100-200, 1.5x" and varying.ratio == 1.5
    assert change("cpu_time_s", _range(0.002), _range(0.001)).text == "CPU time 2 ms -> 1 ms, 2x less"
    work = fingerprint_work({"a": [_tally({"rows_examined": 5.0, "select_scan": 1.0})], "b": [
        _tally({"rows_examined": 5.0, "select_scan": 0.0})
    ]})  # fmt: skip
    assert [c.counter for c in changes(work, "a", "b")] == ["select_scan"]  # equal ones left out
    assert changes(work, "a", "missing") == []


def test_the_plan_change_names_its_part() -> None:
    base = [PlanStep("c", "ALL", None, 9.0), PlanStep("o", "ref", "k_customer", 20.0)]
    assert plan_parts(base, [PlanStep("c", "ALL", None, 9.0), PlanStep("o", "ALL", None, 4e4)]) == [
        "o: access ref -> ALL",
        "o: index k_customer -> none",
    ]
    swapped = [PlanStep("o", "ALL", None, 4e4), PlanStep("c", "eq_ref", "PRIMARY", 1.0)]
    assert plan_parts(base, swapped) == [
        "join order c, o -> o, c",
        "o: access ref -> ALL",
        "o: index k_customer -> none",
        "c: access ALL -> eq_ref",
        "c: index none -> PRIMARY",
    ]
    assert plan_parts(base, [*base[:1], PlanStep("x", "ALL", None, 1.0)]) == [
        "x: only in the variant's plan",
        "o: only in the baseline's plan",
    ]


ROWS_UP = change("rows_examined", _range(16049), _range(802450))
ROWS_DOWN = change("rows_examined", _range(802450), _range(16049))
SMALL = change("rows_examined", _range(1000), _range(1100))
KNOWN = Cause(id="reserved word", title="a word this version reserves, used as a name", check=None)


@pytest.mark.parametrize(
    ("group", "known", "plan", "work", "cost_only", "kind", "text"),
    [
        ("breaks", [KNOWN], ["o: access ref -> ALL"], [ROWS_UP], True, "known cause", KNOWN.title),
        ("breaks", [], ["o: access ref -> ALL"], [ROWS_UP], True, None, None),  # a break, no known cause
        ("same", [], ["o: access ref -> ALL"], [ROWS_UP], True, None, None),
        ("plan changed", [], ["o: access ref -> ALL"], [], False, None, None),  # no time verdict
        ("slower, plan changed", [], ["o: access ref -> ALL"], [ROWS_UP], True, "plan change",
         "plan changed: o: access ref -> ALL; more work: rows examined 16,049 -> 802,450, 50x"),
        ("slower, plan changed", [], ["o: access ref -> ALL"], [ROWS_DOWN], True, "plan change",
         "plan changed: o: access ref -> ALL"),  # work the other way is not the plan's evidence
        ("faster, plan changed", [], [], None, False, "plan change", "plan changed"),
        ("slower", [], None, [SMALL, ROWS_UP], True, "work",
         "more work: rows examined 16,049 -> 802,450, 50x"),
        ("slower (timed out)", [], None, [ROWS_UP], False, "work", "more work: " + ROWS_UP.text),
        ("faster", [], None, [ROWS_DOWN], False, "work", "less work: " + ROWS_DOWN.text),
        ("slower", [], None, [SMALL], True, "per-statement cost",
         "per-statement cost only: net of the null statement's time it is the same "
         "(the variant is slower per statement)"),
        ("slower: per-statement cost only", [], None, [], True, "per-statement cost", None),
        ("slower", [], None, [SMALL], False, "time only", "time only: no counter moved"),
        ("slower", [], None, None, False, "time only", "time only: work counters unavailable (client clock)"),
        ("slower (timed out)", [], None, None, False, "time only",
         "time only: work counters unavailable (timed out: no counters of its timed-out run)"),
        ("faster", [], None, [ROWS_UP], False, "time only",
         "time only: work moved the other way (" + ROWS_UP.text + ")"),
    ],
)  # fmt: skip
def test_the_cause_is_the_first_of_known_plan_work_cost_and_time(
    group: str,
    known: list[Cause],
    plan: list[str] | None,
    work: list[CounterChange] | None,
    cost_only: bool,
    kind: str | None,
    text: str | None,
) -> None:
    cause = change_cause(group, known, plan, work, cost_only)
    assert (cause.kind if cause else None) == kind
    if text is not None:
        assert cause is not None and cause.text == text
    assert direction("slower: per-statement cost only") == "slower" and direction("breaks") is None


# Through compare(): the fingerprint's counters per variant, its changes and cause, the summary's counts.
ROUNDS = 10
SOURCE = parse_source("SELECT * FROM t WHERE a = 1;\nSELECT 1 AS one;\nSELECT 2 AS two;\n").statements
RAN = Outcome(None, None, row_count=1, checksum_ordered="o", checksum_unordered="u")


def _replay(name: str, factors: list[float], rows: list[float] | None, seed: int) -> VariantReplay:
    rng = np.random.default_rng(seed)
    times: list[list[float | None]] = [
        [0.001 * f * float(np.exp(rng.normal(0, 0.01))) for _ in range(ROUNDS)] for f in factors
    ]
    replay = VariantReplay(name, "1", None, [], [RAN] * len(factors), times)
    replay.flavor, replay.clock = "mariadb", "server" if rows is not None else "client"
    replay.work = [
        _tally(*({"rows_examined": r, "select_scan": 1.0} for _ in range(ROUNDS))) if rows else WorkTally()
        for r in rows or factors
    ]
    return replay


def test_compare_gives_each_changed_fingerprint_its_counters_and_cause_and_counts_them() -> None:
    base = _replay("a", [1, 1, 1], [16049, 1, 1], 1)
    other = _replay("b", [3, 2, 1], [802450, 1, 1], 2)  # the first examines 50x more; the second: time only
    reports = compare(SOURCE, [base, other])
    scan, one, two = reports
    assert scan.work["b"].counters["rows_examined"] == _range(802450) and scan.work["a"].executions == ROUNDS
    assert scan.variants["b"].group == "slower" and scan.variants["b"].cause is not None
    assert scan.variants["b"].cause.text == "more work: rows examined 16,049 -> 802,450, 50x"
    assert [c.counter for c in scan.variants["b"].work] == ["rows_examined"]
    assert one.variants["b"].group == "slower" and one.variants["b"].cause is not None
    assert one.variants["b"].cause.text == "time only: no counter moved"
    assert two.variants["b"].group == "same" and two.variants["b"].cause is None
    document = report_document(SOURCE, [base, other], reports)
    (summary,) = document.summary
    assert summary.slower == 2 and summary.slower_causes == {"work": 1, "time only": 1}
    assert summary.faster_causes == {} and document.work_counters == WORK_TEXT
    assert document.variants[0].counters == ["rows_examined", "select_scan"]
    rows = {(row["fingerprint"], row["variant"]): row for row in csv_rows(document)}  # the CSV export
    scan_b = rows[(scan.fingerprint, "b")]
    assert scan_b["cause_kind"] == "work" and scan_b["work_rows_examined"] == 802450
    assert scan_b["work_cpu_time_s"] is None and rows[(two.fingerprint, "b")]["cause"] == ""
    lines = summary_lines(document)  # the CLI's text; its --json is the document itself
    assert "b by cause: slower 2 (work 1, time only 1)" in lines and WORK_TEXT in lines
    assert document.model_dump(mode="json")["summary"][0]["slower_causes"] == {"work": 1, "time only": 1}
    # the per-statement cost's judgment feeds cost_only: a fingerprint with no counter moved
    attribute(one, "a", "b", cost_only=True)
    assert one.variants["b"].cause is not None and one.variants["b"].cause.kind == "per-statement cost"


def test_on_the_client_clock_the_counters_are_unavailable_and_said_so() -> None:
    base, other = _replay("a", [1, 1, 1], None, 1), _replay("b", [3, 1, 1], None, 2)
    reports = compare(SOURCE, [base, other])
    assert reports[0].work == {} and reports[0].variants["b"].work == []
    cause = reports[0].variants["b"].cause
    assert cause is not None and cause.text == "time only: work counters unavailable (client clock)"
    document = report_document(SOURCE, [base, other], reports)
    assert document.work_counters == UNAVAILABLE_TEXT and document.variants[1].counters == []


def test_a_variant_on_the_client_clock_has_no_counters_and_the_others_keep_theirs() -> None:
    base, server, client = (
        _replay("a", [1, 1, 1], [16049, 1, 1], 1),
        _replay("b", [3, 1, 1], [802450, 1, 1], 2),
        _replay("c", [3, 1, 1], None, 3),
    )
    reports = compare(SOURCE, [base, server, client])
    assert set(reports[0].work) == {"a", "b"}
    found = reports[0].variants
    assert found["b"].cause is not None and found["b"].cause.kind == "work"
    assert found["c"].cause is not None and found["c"].cause.text.endswith("unavailable (client clock)")
    document = report_document(SOURCE, [base, server, client], reports)
    assert document.work_counters == f"{WORK_TEXT}; unavailable on c (client clock: performance_schema off)"
