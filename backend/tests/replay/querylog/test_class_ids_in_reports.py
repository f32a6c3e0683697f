"""A replay's report and CSV carry each fingerprint's pt-query-digest class ID (issue 47): the
replay groups statements by pt's class, so `fingerprint_id` is the class ID a team finds in its
pt-query-digest report (`0x...<class_id>`); reports and stored statements from before read on,
their class ID None (their id is the lab's own, no pt class)."""

from dataclasses import asdict
from typing import Any

from tests.replay.test_report_schema import BEFORE_ROUNDS
from upgradelab.api.replay import csv_rows
from upgradelab.measurement.engine import VariantReplay
from upgradelab.measurement.outcomes import Outcome
from upgradelab.measurement.pt_fingerprint import checksum, class_id
from upgradelab.measurement.sources import SourceStatement, parse_source
from upgradelab.replay.compare import compare
from upgradelab.replay.report import ReplayReport

SOURCE = parse_source(
    "SELECT * FROM orders WHERE id = 1 ORDER BY id ASC;\n"
    "SELECT * FROM orders WHERE id = 2 ORDER BY id;\n"  # one class with the first, as pt's
    "SELECT * FROM orders WHERE id=3;\n"  # another (pt keeps the spacing)
)


def _replays(statements: list[SourceStatement]) -> list[VariantReplay]:
    same = Outcome(None, None, row_count=1, checksum_ordered="o", checksum_unordered="u")
    times: list[list[float | None]] = [[0.001] * 6 for _ in statements]
    return [VariantReplay(name, "1", None, [], [same for _ in statements], times) for name in ("old", "new")]


def _report(statements: list[SourceStatement]) -> ReplayReport:
    stored: dict[str, Any] = dict(BEFORE_ROUNDS)
    stored["fingerprints"] = [f.model_dump(mode="json") for f in compare(statements, _replays(statements))]
    return ReplayReport.model_validate(stored)


def test_each_fingerprint_carries_its_pt_class_id_into_the_report_and_the_csv() -> None:
    report = _report(SOURCE.statements)
    assert [f.fingerprint for f in report.fingerprints] == [
        "select * from orders where id = ? order by id",
        "select * from orders where id=?",
    ]
    for one in report.fingerprints:
        assert (
            one.class_id == one.fingerprint_id == class_id(one.fingerprint) == checksum(one.fingerprint)[-16:]
        )
        assert len(one.class_id) == 16 and one.class_id == one.class_id.upper()
    rows = csv_rows(report)
    assert [row["class_id"] for row in rows] == [
        f.class_id for f in report.fingerprints for _ in ("old", "new")
    ]
    assert list(rows[0])[:3] == ["fingerprint_id", "class_id", "fingerprint"]


def test_reports_and_statements_stored_before_read_with_no_class_id() -> None:
    old_report = ReplayReport.model_validate(BEFORE_ROUNDS)
    assert old_report.fingerprints[0].class_id is None
    assert {row["class_id"] for row in csv_rows(old_report)} == {""}
    stored = [{k: v for k, v in asdict(s).items() if k != "class_id"} for s in SOURCE.statements]
    statements = [SourceStatement(**one) for one in stored]  # as a replay queued before reads them
    assert all(s.class_id is None for s in statements)
    assert {f.class_id for f in _report(statements).fingerprints} == {None}
