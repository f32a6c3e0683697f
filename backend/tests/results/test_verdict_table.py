"""The verdict table on synthetic runs in the metadata database: per group and metric, from the
`iteration` rows, stored once, re-decided at the user's threshold, with the A/A floor."""

from collections.abc import Iterator

import pytest
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from tests.results.synthetic import SyntheticVariant, insert_run
from upgradelab.db import sync_session
from upgradelab.results.store.summary_models import VariantSummary
from upgradelab.results.views.comparison import compare
from upgradelab.results.views.comparison_schemas import Comparison, ComparisonQuery, ComparisonRow
from upgradelab.results.views.export import COMPARISON_COLUMNS, comparison_rows
from upgradelab.runs.models import Run


@pytest.fixture
def session(database: None) -> Iterator[Session]:
    with sync_session() as opened:
        yield opened


def _compare(session: Session, runs: list[int], **query: object) -> Comparison:
    return compare(session, ComparisonQuery(runs=runs, **query), max_points=1000)


def _row(comparison: Comparison, index: int, group: str = "", metric: str = "seconds") -> ComparisonRow:
    return next(
        r for r in comparison.rows if r.variant_index == index and r.group == group and r.metric == metric
    )


VARIANTS = [
    SyntheticVariant("mysql-9.7 default"),
    SyntheticVariant("mysql-9.7 default (A/A)", is_aa_control=True),
    SyntheticVariant("mysql-9.7 slower", shift=1.15),
    SyntheticVariant("mysql-9.7 redo-off", shift=0.7),
]


def test_rounds_give_regression_improvement_and_an_a_a_floor_stored_once(session: Session) -> None:
    run_id = insert_run(session, VARIANTS, rounds=10, seed=11)
    comparison = _compare(session, [run_id])
    assert comparison.stored and comparison.min_rounds == 5
    base, aa, slower, redo = (_row(comparison, i) for i in range(4))
    assert base.is_baseline and base.ratio is None
    assert aa.is_aa_control and aa.ratio is not None and aa.ratio.verdict == "no significant difference"
    assert slower.ratio is not None and slower.ratio.method == "paired rounds" and slower.ratio.rounds == 10
    assert slower.ratio.verdict == "regression" and slower.ratio.low > 1
    assert redo.ratio is not None and redo.ratio.verdict == "improvement"
    assert redo.aa_floor is not None and redo.aa_floor.low <= 1 <= redo.aa_floor.high
    assert aa.aa_floor is None
    assert slower.iterations == 30 and slower.rounds == 10
    stored = session.scalars(select(VariantSummary).where(VariantSummary.run_id == run_id)).all()
    verdicts = [(s.variant_index, s.verdict_value and s.verdict_value.verdict) for s in stored]
    assert verdicts == [
        (0, None),
        (1, "no significant difference"),
        (2, "regression"),
        (3, "improvement"),
    ]
    assert stored[2].floor_value is not None and stored[2].floor_value.low == pytest.approx(redo.aa_floor.low)
    # a threshold above the shift re-decides the stored interval: no longer a regression
    loose = _row(_compare(session, [run_id], threshold=0.5), 2)
    assert loose.ratio is not None and loose.ratio.verdict != "regression"
    assert loose.ratio.ratio == pytest.approx(slower.ratio.ratio)


def test_charset_oltp_is_compared_on_tps_and_p95_per_thread_count(session: Session) -> None:
    # 614 vs 459 tps: MariaDB latin1 against utf8mb4_general_ci (issue 12); seconds are fixed at 10 s
    variants = [SyntheticVariant("latin1"), SyntheticVariant("utf8mb4_general_ci", shift=614 / 459)]
    run_id = insert_run(
        session, variants, rounds=6, workload="charset-oltp", groups=("threads=1", "threads=2"), seed=3
    )
    comparison = _compare(session, [run_id])
    assert {(r.group, r.metric) for r in comparison.rows} == {
        (g, m) for g in ("threads=1", "threads=2") for m in ("tps", "p95_ms")
    }
    for group in ("threads=1", "threads=2"):
        tps = _row(comparison, 1, group, "tps")
        assert tps.unit == "tps" and tps.higher_is_better and tps.iterations == 18
        assert tps.ratio is not None and tps.ratio.ratio == pytest.approx(459 / 614, rel=0.05)
        assert tps.ratio.verdict == "regression"  # fewer transactions per second
        p95 = _row(comparison, 1, group, "p95_ms")
        assert p95.ratio is not None and p95.ratio.verdict == "regression" and p95.ratio.ratio > 1.2
        assert tps.median_s == pytest.approx(10.0)


def test_one_round_is_a_within_block_bootstrap_and_not_a_verdict(session: Session) -> None:
    run_id = insert_run(session, VARIANTS[::2], rounds=1, block=20, seed=5)
    slower = _row(_compare(session, [run_id]), 1)
    assert slower.ratio is not None and slower.ratio.method == "within-block bootstrap"
    assert slower.ratio.verdict == "insufficient rounds" and "not a verdict" in slower.ratio.reason


def test_warm_up_cut_and_two_runs_compared_unpaired(session: Session) -> None:
    first = insert_run(session, VARIANTS[:1], rounds=8, block=2, seed=1)
    second = insert_run(session, [SyntheticVariant("mysql-9.7 slower", shift=1.3)], rounds=8, block=2, seed=2)
    cut = _compare(session, [first], warmup=4)
    assert not cut.stored and _row(cut, 0).iterations == 12
    assert cut.series[0].points[0].iteration == 5
    both = _compare(session, [first, second])
    other = next(r for r in both.rows if r.run_id == second)
    assert other.label == f"#{second} mysql-9.7 slower"
    assert other.ratio is not None and other.ratio.method == "unpaired rounds"
    assert other.ratio.verdict == "regression" and other.aa_floor is None
    rounds = [s for s in both.rounds if s.key == f"{second}:0"]
    assert len(rounds) == 1 and [p.round for p in rounds[0].points] == list(range(1, 9))


def test_comparison_export_carries_interval_verdict_and_floor(session: Session) -> None:
    run_id = insert_run(session, VARIANTS, rounds=6, seed=9)
    rows = comparison_rows(_compare(session, [run_id]))
    assert set(rows[0]) == set(COMPARISON_COLUMNS)
    assert rows[3]["verdict"] == "improvement" and rows[3]["aa_ratio_low"] is not None
    assert rows[3]["method"] == "paired rounds" and rows[3]["mde"] > 0


def test_an_auto_extended_run_is_judged_at_a_confidence_shared_among_its_looks(session: Session) -> None:
    run_id = insert_run(session, VARIANTS, rounds=10, seed=4)
    plain = _compare(session, [run_id])
    run = session.get(Run, run_id)
    assert run is not None
    run.experiment.max_rounds = 30  # 5 looks (10, 15, ..., 30 rounds): 99 % intervals
    session.execute(delete(VariantSummary).where(VariantSummary.run_id == run_id))  # stored at 95 %
    session.commit()
    extended = _compare(session, [run_id])
    for index in (1, 2, 3):
        narrow, wide = _row(plain, index).ratio, _row(extended, index).ratio
        assert narrow is not None and wide is not None
        assert wide.ratio == pytest.approx(narrow.ratio)
        assert wide.low < narrow.low and wide.high > narrow.high


def test_the_stored_table_serves_the_rounds_chart_without_reading_iterations(session: Session) -> None:
    run_id = insert_run(session, VARIANTS, rounds=7, groups=("table=a", "table=b"), seed=5)
    read = _compare(session, [run_id])  # with series: every iteration is read
    fast = compare(session, ComparisonQuery(runs=[run_id]), max_points=1000, with_series=False)
    assert fast.stored and fast.series == []
    assert fast.rounds == read.rounds and len(fast.rounds) == 4 * 2
    assert all(len(series.points) == 7 for series in fast.rounds)
    assert fast.rows == read.rows
    # a summary stored before round_values existed is read as before, from the iterations
    session.execute(update(VariantSummary).where(VariantSummary.run_id == run_id).values(round_values=None))
    session.commit()
    old = compare(session, ComparisonQuery(runs=[run_id]), max_points=1000, with_series=False)
    assert old.stored and old.rounds == read.rounds
