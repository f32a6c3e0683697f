"""Per-variant findings from data (the servers' own are in test_replay_on_servers.py): "same" when the
interval lies within the threshold, false discoveries controlled across the replay's fingerprints,
plans compared within one flavor only, "slower, plan changed" and "slower (timed out)" per variant,
the summary counts."""

import math

import numpy as np
import pytest

from upgradelab.measurement.engine import VariantReplay
from upgradelab.measurement.outcomes import Outcome, PlanStep
from upgradelab.measurement.sources import SourceStatement, parse_source
from upgradelab.replay.compare import compare
from upgradelab.replay.document import EXIT_REGRESSIONS, exit_bits, report_document
from upgradelab.results.stats import fdr, paired

ROUNDS = 10
FULL = Outcome(
    None,
    None,
    row_count=1,
    checksum_ordered="o",
    checksum_unordered="u",
    plan=[PlanStep("t", "ALL", None, 9.0)],
)
INDEXED = Outcome(
    None,
    None,
    row_count=1,
    checksum_ordered="o",
    checksum_unordered="u",
    plan=[PlanStep("t", "ref", "k", 1.0)],
)


def _source(count: int) -> list[SourceStatement]:
    """`count` statements, each its own class: tables named by letters (pt's fingerprint, the
    replay's classes, makes a name's digits `?`: t1 and t2 would be one class)."""
    names = [f"t_{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(count)]
    return parse_source("".join(f"SELECT COUNT(*) FROM {name};\n" for name in names)).statements


def _replay(
    name: str, flavor: str, times: list[list[float | None]], outcomes: list[Outcome]
) -> VariantReplay:
    replay = VariantReplay(name, "1", None, [], outcomes, times)
    replay.flavor = flavor
    return replay


def _noise(seed: int, count: int, factor: float = 1.0, spread: float = 0.01) -> list[list[float | None]]:
    rng = np.random.default_rng(seed)
    return [
        [0.001 * (i + 1) * factor * float(np.exp(rng.normal(0, spread))) for _ in range(ROUNDS)]
        for i in range(count)
    ]


def test_a_steady_aa_pair_is_same_and_the_summary_counts_it() -> None:
    statements = _source(30)
    base = _replay("a", "mariadb", _noise(1, 30), [FULL] * 30)
    other = _replay("b", "mariadb", _noise(2, 30), [FULL] * 30)
    reports = compare(statements, [base, other])
    same = sum(r.variants["b"].group == "same" for r in reports)
    assert same >= 27, [(r.variants["b"].group, r.ratios["b"].low, r.ratios["b"].high) for r in reports]
    document = report_document(statements, [base, other], reports)
    (summary,) = document.summary
    assert summary.same == same and summary.slower == 0 and summary.breaks == 0
    assert document.fdr is not None and "Benjamini-Hochberg" in document.fdr and "60" not in document.fdr
    assert all(r.variants["b"].p_value is not None for r in reports)


def test_one_marginal_regression_among_many_is_not_kept_after_benjamini_hochberg() -> None:
    logs = [0.5] * 1 + [0.0] * 59
    p_values = [0.001] + [0.5] * 59
    adjusted = fdr.adjusted(p_values)
    assert adjusted[0] == pytest.approx(0.06) and all(q <= 1 for q in adjusted)  # 0.001 x 60 / 1
    assert fdr.paired_p_value(logs[:1] * 3) == 0.0 and fdr.paired_p_value([0.0, 0.0, 0.0]) == 1.0
    steady = [0.12, 0.02, 0.2, 0.05, 0.16, 0.03, 0.14, 0.08]
    wider = [0.12, -0.02, 0.2, 0.05, 0.16, 0.01, 0.14]
    for noisy in (steady, wider):
        p = fdr.paired_p_value(noisy)
        found = paired.shift(np.array(noisy), "trimmed")
        assert p is not None and found is not None
        assert (p < 0.05) == (found[1] > 0), (p, found)  # the p-value of the interval verdicts.py reads
    p = fdr.paired_p_value(steady)
    assert p is not None and 0.001 < p < 0.05
    assert fdr.adjusted([p] + [0.9] * 59)[0] > 0.05  # alone significant, not among 60


def test_a_plan_changed_within_a_flavor_is_slower_plan_changed_and_across_flavors_no_change() -> None:
    statements = _source(2)
    base = _replay("10.11", "mariadb", _noise(3, 2), [INDEXED, INDEXED])
    slower = _replay(
        "11.8", "mariadb", [_noise(4, 2)[0], [3 * (t or 0) for t in _noise(5, 2)[1]]], [INDEXED, FULL]
    )
    mysql = _replay("9.7", "mysql", _noise(6, 2), [FULL, FULL])
    reports = compare(statements, [base, slower, mysql])
    assert (
        reports[1].variants["11.8"].group == "slower, plan changed"
        and reports[1].group == "slower, plan changed"
    )
    assert reports[0].variants["9.7"].group == "same"  # another form of plan across flavors: no change
    assert not reports[0].statements[0].diffs[1].plan and not reports[0].statements[0].diffs[1].plan_compared
    summary = report_document(statements, [base, slower, mysql], reports).summary
    assert [(s.variant, s.slower, s.slower_plan_changed, s.plan_changes) for s in summary] == [
        ("11.8", 1, 1, 1),
        ("9.7", 0, 0, 0),
    ]


def test_a_plan_changed_that_wins_is_faster_plan_changed_not_faster_alone() -> None:
    statements = _source(2)
    base = _replay("10.11", "mariadb", _noise(3, 2), [INDEXED, FULL])
    faster = _replay(
        "11.8", "mariadb", [_noise(4, 2)[0], [(t or 0) / 3 for t in _noise(5, 2)[1]]], [INDEXED, INDEXED]
    )
    reports = compare(statements, [base, faster])
    assert reports[1].variants["11.8"].group == "faster, plan changed"
    assert reports[1].group == "faster, plan changed" and reports[0].group == "same"
    summary = report_document(statements, [base, faster], reports).summary
    assert [(s.faster, s.faster_plan_changed, s.slower, s.plan_changes) for s in summary] == [(1, 1, 0, 1)]


def test_a_statement_timed_out_on_the_variant_only_is_slower_timed_out_without_rounds() -> None:
    statements = _source(1)
    base = _replay("a", "mysql", [[0.001] * 2], [FULL])
    timed = Outcome(None, None, kind="timed out", note="timed out after 1 s")
    other = _replay("b", "mysql", [[None, None]], [timed])
    (report,) = compare(statements, [base, other])
    assert report.variants["b"].group == "slower (timed out)"
    assert exit_bits([report]) & EXIT_REGRESSIONS
    (summary,) = report_document(statements, [base, other], [report]).summary
    assert summary.slower_timed_out == 1 and summary.timeouts == 1 and summary.slower == 1
    assert math.isfinite(report.median_s["a"] or math.inf)


def test_an_aa_control_gives_each_fingerprint_its_floor_and_a_change_inside_it_is_not_a_verdict() -> None:
    statements = _source(1)
    drift = [1.0, 1.6, 0.7, 1.3, 0.9, 1.5, 0.8, 1.2, 1.1, 0.6]
    base = _replay("a", "mariadb", [[0.001 * d for d in drift]], [FULL])
    # the A/A control wanders +/- 30 % round by round: this run's noise floor is wide
    aa = _replay(
        "a (A/A)", "mariadb", [[0.001 * d * (1.3 if r % 2 else 0.77) for r, d in enumerate(drift)]], [FULL]
    )
    slower = _replay(
        "b", "mariadb", [[0.00125 * d * (1.02 if r % 2 else 0.98) for r, d in enumerate(drift)]], [FULL]
    )
    (without,) = compare(statements, [base, slower])
    assert without.ratios["b"].verdict == "regression" and without.floor is None
    (report,) = compare(statements, [base, slower, aa], aa_control="a (A/A)")
    assert report.floor is not None and report.floor.low < 1 < report.floor.high
    assert report.floor == report.ratios["a (A/A)"]
    assert report.ratios["b"].verdict == "inconclusive" and "A/A" in report.ratios["b"].reason
    document = report_document(statements, [base, slower, aa], [report], aa_control="a (A/A)")
    assert document.aa_control == "a (A/A)" and [s.variant for s in document.summary] == ["b", "a (A/A)"]


def test_a_baseline_alone_groups_its_refusals_and_timeouts() -> None:
    statements = _source(3)
    refused = Outcome(1792, "read only", kind="refused", note="refused: writes in a read-only replay")
    timed = Outcome(None, None, kind="timed out", note="timed out after 1 s")
    alone = _replay("a", "mariadb", [[0.001, 0.001], [None, None], [None, None]], [FULL, refused, timed])
    assert [r.group for r in compare(statements, [alone])] == ["same", "refused", "timed out"]


def test_a_regression_inside_a_break_is_counted_slower_with_its_own_cause_beside_the_break() -> None:
    """The issue's view query: the same rows in another order (no ORDER BY) and 5x slower with another
    plan. Its group is "breaks" (the most severe), and the summary still counts it in `slower`, with
    its cause and "1 also a break"; exit bits, the CSV and the CLI's text follow."""
    from upgradelab.api.replay import csv_rows
    from upgradelab.cli.replay import summary_lines

    statements = _source(2)
    base = _replay("10.11", "mariadb", _noise(7, 2), [INDEXED, INDEXED])
    reordered = Outcome(
        None, None, row_count=1, checksum_ordered="o2", checksum_unordered="u", plan=FULL.plan
    )
    slower = _replay(
        "11.8", "mariadb", [_noise(8, 2)[0], [5 * (t or 0) for t in _noise(9, 2)[1]]], [INDEXED, reordered]
    )
    reports = compare(statements, [base, slower])
    finding = reports[1].variants["11.8"]
    assert reports[1].group == finding.group == "breaks"
    assert [f.kind for f in finding.findings] == ["breaks", "slower", "plan changed"]
    time = finding.findings[1]
    assert time.cause is not None and time.cause.kind == "plan change"
    assert time.cause.text.startswith("plan changed: t: access ref -> ALL")
    assert finding.findings[0].cause is None  # no known cause of this break
    document = report_document(statements, [base, slower], reports)
    (summary,) = document.summary
    assert (summary.breaks, summary.slower, summary.slower_also_break, summary.slower_plan_changed) == (
        1, 1, 1, 1,
    )  # fmt: skip
    assert summary.slower_causes == {"plan change": 1} and summary.same == 1
    assert "slower 1 (1 also a break, plan changed 1, timed out 0)" in summary.text
    assert document.exit_bits == 1 | EXIT_REGRESSIONS | 4
    assert any(summary.text == line for line in summary_lines(document))
    row = next(r for r in csv_rows(document) if r["variant"] == "11.8" and r["group"] == "breaks")
    assert row["findings"] == "breaks; slower; plan changed" and row["time_finding"] == "slower"
    assert row["time_cause_kind"] == "plan change"
