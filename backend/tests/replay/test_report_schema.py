"""The stored replay report read back through its schema (replay/report.py ReplayReport): reports
stored before rounds (issue 12) still read, with the fields they lack as None (their ratios: as what
one block's timings give), and the CSV export reads them; a report of today round-trips through its
JSON unchanged."""

from typing import Any

import pytest
from pydantic import ValidationError

from upgradelab.api.replay import csv_rows
from upgradelab.replay.report import ReplayReport

OUTCOME: dict[str, Any] = {
    "error_code": None, "error_message": None, "warnings": [["Note", 1003, "x"]], "row_count": 2,
    "checksum_ordered": "a", "checksum_unordered": "b",
    "plan": [{"table": "orders", "access_type": "ALL", "key": None, "rows": 10.0}],
    "plan_json": {"query_block": {}}, "plan_error": None,
}  # fmt: skip
DIFF: dict[str, Any] = {
    "variant": "new", "error": False, "warnings": False, "result": False, "ordering_only": True,
    "unordered_query": True, "plan": False, "breaks": True,
}  # fmt: skip
# As replay/compare.py wrote it before rounds (commit 8ebe65b): no rounds, passes, schedule or
# threshold; ratios with ratio, low, high and verdict only.
BEFORE_ROUNDS: dict[str, Any] = {
    "baseline": "old",
    "variants": [
        {"name": "old", "version": "10.11.9-MariaDB",
         "loaded": {"bytes_fed": 9, "rows_seen": 3, "elapsed_s": 0.5},
         "tables": [{"schema": "shop", "name": "orders", "rows": 3, "bytes": 16384}]},
        {"name": "new", "version": "9.7.0", "loaded": None, "tables": []},
    ],
    "groups": {"breaks": 1, "plan changes": 0, "slower": 0, "faster": 0, "same": 0},
    "exit_bits": 1,
    "statements": 1,
    "fingerprints": [
        {"fingerprint_id": "f1", "fingerprint": "select k, count(*) from t group by k", "group": "breaks",
         "median_s": {"old": 0.001, "new": 0.002},
         "ratios": {"new": {"ratio": 2.0, "low": 1.5, "high": 2.5, "verdict": "regression"}},
         "statements": [{"sql": "SELECT k, COUNT(*) FROM t GROUP BY k", "database": "shop",
                         "outcomes": {"old": OUTCOME, "new": OUTCOME}, "diffs": [DIFF]}]},
    ],
}  # fmt: skip


def test_a_report_stored_before_rounds_reads_with_the_missing_fields_as_none() -> None:
    report = ReplayReport.model_validate(BEFORE_ROUNDS)
    assert report.rounds is None and report.schedule is None and report.threshold is None
    ratio = report.fingerprints[0].ratios["new"]
    # one block's timings then: read as the within-block bootstrap's interval, rounds 1
    assert (ratio.ratio, ratio.verdict, ratio.rounds, ratio.method) == (
        2.0,
        "regression",
        1,
        "within-block bootstrap",
    )
    assert ratio.mde == pytest.approx((2.5 / 1.5) ** 0.5 - 1)
    outcome = report.fingerprints[0].statements[0].outcomes["new"]
    assert outcome.warnings == [("Note", 1003, "x")] and outcome.plan[0].access_type == "ALL"
    assert report.variants[0].loaded is not None and report.variants[0].loaded.rows_seen == 3
    [old, new] = csv_rows(report)
    assert old["variant"] == "old" and old["ratio"] is None  # the baseline has no ratio to itself
    assert new["ratio"] == 2.0 and new["ordering_only"] == 1 and new["ratio_rounds"] == 1


def test_breaks_is_derived_and_the_json_round_trips() -> None:
    report = ReplayReport.model_validate(BEFORE_ROUNDS)
    diff = report.fingerprints[0].statements[0].diffs[0]
    assert diff.breaks  # an order the query never asked for (no ORDER BY)
    again = ReplayReport.model_validate(report.model_dump(mode="json"))
    assert again == report
    assert report.model_dump(mode="json")["fingerprints"][0]["statements"][0]["diffs"][0]["breaks"] is True


def test_an_unknown_group_is_refused_naming_the_field() -> None:
    broken = ReplayReport.model_validate(BEFORE_ROUNDS).model_dump(mode="json")
    broken["fingerprints"][0]["group"] = "worse"
    with pytest.raises(ValidationError, match=r"fingerprints\.0\.group"):
        ReplayReport.model_validate(broken)


def test_a_variant_stored_without_an_interval_reads_as_no_ratio() -> None:
    # As replay/compare.py wrote it from rounds to one verdict shape (TimeRatio): all None but rounds
    # when a side had no round; the one read model has no such half value, so the variant has no ratio.
    stored = ReplayReport.model_validate(BEFORE_ROUNDS).model_dump(mode="json")
    stored["fingerprints"][0]["ratios"] = {
        "new": {"ratio": None, "low": None, "high": None, "rounds": 0, "mde": None, "method": None,
                "verdict": None, "reason": None},
    }  # fmt: skip
    report = ReplayReport.model_validate(stored)
    assert report.fingerprints[0].ratios == {}
    [_, new] = csv_rows(report)
    assert new["ratio"] is None and new["verdict"] is None and new["ratio_rounds"] is None
