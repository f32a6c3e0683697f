"""A child the assessment's budget stopped (issue 49, the report's words): it ended through its own
cancel, so its own status reads `cancelled`, and the assessment names it (AssessmentChildren
stopped_by_budget). The report, its Markdown and CSV, and the assessment's JSON say "out of budget"
for it, never "cancelled"; a step not started keeps "not started: out of budget"; the same child
cancelled by its owner still reads cancelled. Deterministic: constructed children, and the runner's
budget call on a constructed assessor (no worker, no server)."""

import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.assessment.children import NEW, capture, check, fingerprint, fix_search, replay
from upgradelab.api.assessments import todo_csv
from upgradelab.assessment import runner
from upgradelab.assessment.document import About, markdown
from upgradelab.assessment.report import VersionEvidence, build_report
from upgradelab.assessment.runner import NOT_STARTED, Assessor
from upgradelab.assessment.schemas import AssessmentChildren, StoppedChild
from upgradelab.execution.kinds import JobKind
from upgradelab.fixsearch.jobs import FIX_SEARCH_JOBS
from upgradelab.replay.jobs import REPLAY_JOBS

ABOUT = About(9, "team", "http://lab.example/assessments/9", datetime(2026, 12, 6, 9, 0, tzinfo=UTC), "1.2.3")
SAID = "the replay could not evaluate this version (out of budget: the assessment's budget ended it)"


def test_the_replay_the_budget_ended_reads_out_of_budget_in_the_report_and_its_exports() -> None:
    evidence = VersionEvidence(NEW, check=check(), replay=replay([], exit_bits=0, status="cancelled"))
    report = build_report(capture(), [evidence], stopped_by_budget=("replay", 7))
    [item] = report.versions[0].todo
    assert (item.area, item.text) == ("not_evaluated", SAID)
    assert item.action == "assess again with a larger budget (--budget-min)" and item.evidence == "/replays/7"
    assert report.versions[0].verdict == "mariadb-11.8: 1 step not evaluated"
    for document in (markdown(report, ABOUT, "http://lab.example"), todo_csv(report)):
        assert "out of budget: the assessment's budget ended it" in document and "cancelled" not in document
    # the same replay cancelled by its owner, or another child named: it was cancelled
    for stopped in (None, ("replay", 8), ("fix_search", 7)):
        [mine] = build_report(capture(), [evidence], stopped_by_budget=stopped).versions[0].todo
        assert mine.text == "the replay could not evaluate this version (cancelled)", stopped


def test_a_fix_search_the_budget_ended_says_no_fix_found_out_of_budget() -> None:
    slower = {"kind": "slower", "cause": {"kind": "plan change", "text": "plan changed: range -> ALL"}}
    found = replay([fingerprint("c" * 32, "SELECT * FROM orders WHERE day > ?", [slower], ratio=3.5)], 2)
    search = fix_search(11, "c" * 32, "restored", None).model_copy(
        update={"status": "cancelled", "result": None}
    )
    evidence = VersionEvidence(NEW, check=check(), replay=found, fix_searches=[search])
    [item] = build_report(capture(), [evidence], stopped_by_budget=("fix_search", 11)).versions[0].todo
    assert item.area == "slower" and item.evidence == "/fixsearches/11"
    assert item.action == "no fix found: out of budget (the assessment's budget ended its search)"
    [mine] = build_report(capture(), [evidence]).versions[0].todo
    assert mine.action == "no fix found: the search cancelled"


def test_the_steps_not_started_keep_not_started_out_of_budget() -> None:
    evidence = VersionEvidence(NEW, check=check(), why_no_replay=NOT_STARTED)
    [item] = build_report(capture(), [evidence], stopped_by_budget=("check", 5)).versions[0].todo
    assert item.text == "the replay could not evaluate this version (not started: out of budget)"
    assert item.action == "start the replay"


class _Children:
    """The runner's children module as far as the budget's call goes: cancels recorded."""

    def __init__(self) -> None:
        self.cancelled: list[tuple[str, int]] = []

    def cancel(self, kind: JobKind, child_id: int) -> None:
        self.cancelled.append((kind.api_name, child_id))


def _assessor(current: tuple[JobKind, int] | None) -> Any:
    assessor: Any = Assessor.__new__(Assessor)  # no row, no worker: only what the budget's call reads
    assessor.lock, assessor.current = threading.Lock(), current
    assessor.children, assessor.make = AssessmentChildren(), _Children()
    return assessor


def test_the_budgets_call_names_the_running_child_then_cancels_it(monkeypatch: pytest.MonkeyPatch) -> None:
    final: set[tuple[str, int]] = set()
    monkeypatch.setattr(runner, "_final", lambda kind, child_id: (kind.api_name, child_id) in final)
    assessor = _assessor((REPLAY_JOBS, 7))
    assessor._end_for_budget()
    assert assessor.children.stopped_by_budget == StoppedChild(kind="replay", id=7)
    assert assessor.make.cancelled == [("replay", 7)]
    # called again at the watch's next poll, and after the next child started: the first one stays named
    assessor.current = (FIX_SEARCH_JOBS, 11)
    assessor._end_for_budget()
    assert assessor.children.stopped_by_budget == StoppedChild(kind="replay", id=7)
    # a child that ended on its own before the budget's call is not the budget's
    final.add(("fix_search", 12))
    late = _assessor((FIX_SEARCH_JOBS, 12))
    late._end_for_budget()
    assert late.children.stopped_by_budget is None and late.make.cancelled == [("fix_search", 12)]
    idle = _assessor(None)
    idle._end_for_budget()
    assert idle.children.stopped_by_budget is None and idle.make.cancelled == []


def test_the_json_carries_the_child_the_budget_stopped() -> None:
    stored = AssessmentChildren(stopped_by_budget=StoppedChild(kind="replay", id=7)).model_dump(mode="json")
    assert stored["stopped_by_budget"] == {"kind": "replay", "id": 7}
    assert AssessmentChildren.model_validate({}).stopped_by_budget is None  # rows stored before it
