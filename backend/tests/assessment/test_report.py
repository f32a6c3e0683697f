"""The assessment's report builder (assessment/report.py build_report) on constructed children: the
to-do list in its areas' order with each item's action and evidence link, the verdict line's counts,
the exit bits, and every missing or failed child reported "could not evaluate" with why."""

from tests.assessment.children import (
    NEW,
    capture,
    check,
    fix_search,
    planted_check,
    planted_replay,
    replay,
)
from upgradelab.assessment.report import (
    AREAS,
    BLOCKED,
    BREAKS,
    CANNOT_RUN,
    PLAN_CHANGES,
    REGRESSIONS,
    VersionEvidence,
    build_report,
)


def _planted() -> VersionEvidence:
    return VersionEvidence(
        NEW,
        check=planted_check(),
        replay=planted_replay(),
        fix_searches=[
            fix_search(11, "c" * 32, "restored", "SELECT /*+ INDEX(orders day) */ ..."),
            fix_search(12, "d" * 32, "no remedy found", None),
        ],
    )


def test_the_todo_list_is_in_the_areas_order_each_item_with_its_action_and_evidence() -> None:
    report = build_report(capture(), [_planted()])
    [version] = report.versions
    areas = [item.area for item in version.todo]
    assert areas == [
        "does_not_start",
        "locks_out",
        "does_not_load",
        "changes_results",  # the check's reserved word
        "changes_results",  # the replay's break
        "slower",
        "slower",
        "changes_behaviour",
    ]
    assert areas == sorted(areas, key=AREAS.index)
    start, login, load, word, brk, fixed, unfixed, default = version.todo
    assert "innodb_file_format=Barracuda" in start.subject and start.action.startswith("remove")
    assert "'legacy'@'%'" in login.subject and "ALTER USER" in login.action
    assert load.action == "rename table shop.vector or quote it"
    assert word.action.startswith("quote `vector`")
    assert brk.evidence == f"/replays/7#fp-{'b' * 32}" and "a reserved word" in brk.text
    assert fixed.text.startswith("3.50x slower on mariadb-11.8: plan changed: range -> ALL")
    assert (
        fixed.action == "apply: SELECT /*+ INDEX(orders day) */ ..." and fixed.evidence == "/fixsearches/11"
    )
    assert unfixed.action == "no fix found: no remedy found" and unfixed.evidence == "/fixsearches/12"
    assert default.subject == "innodb_io_capacity" and "innodb_io_capacity=200" in default.action
    for item in version.todo[:5]:
        assert item.evidence, item
    assert start.evidence == "/captures/3#check-5"


def test_the_verdict_line_counts_blockers_slower_queries_and_defaults() -> None:
    [version] = build_report(capture(), [_planted()]).versions
    assert version.verdict == (
        "mariadb-11.8: 3 blockers, 2 changes of results, 2 queries slower (1 with a proven fix), "
        "1 default or setting changes under you"
    )
    assert (version.blockers, version.slower, version.slower_fixed, version.plan_changes) == (3, 2, 1, 1)


def test_exit_bits_are_the_replays_plus_a_bit_for_the_checks_blockers() -> None:
    report = build_report(capture(), [_planted()])
    assert report.exit_bits == BREAKS | REGRESSIONS | PLAN_CHANGES | BLOCKED
    clean = build_report(capture(), [VersionEvidence(NEW, check=check(), replay=replay([], exit_bits=0))])
    assert clean.exit_bits == 0
    assert clean.versions[0].verdict == "mariadb-11.8: nothing to do"
    assert clean.versions[0].todo == []


def test_a_slower_query_without_a_fix_search_says_so() -> None:
    evidence = VersionEvidence(NEW, check=check(), replay=planted_replay())
    [version] = build_report(capture(), [evidence]).versions
    slower = [item for item in version.todo if item.area == "slower"]
    assert [item.action for item in slower] == ["no fix found: no fix search ran for it"] * 2
    assert all(item.evidence.startswith("/replays/7#fp-") for item in slower)
    assert "2 queries slower without a proven fix" in version.verdict


def test_missing_and_failed_children_are_not_evaluated_with_why_first() -> None:
    evidence = VersionEvidence(
        NEW, check=check(status="failed", error="mariadbd did not start"), why_no_replay="out of budget"
    )
    report = build_report(capture(status="failed", error="Access denied"), [evidence])
    [version] = report.versions
    assert [item.area for item in version.todo] == ["not_evaluated"] * 3
    texts = [item.text for item in version.todo]
    assert texts == [
        "the capture could not evaluate this version (failed: Access denied)",
        "the check could not evaluate this version (failed: mariadbd did not start)",
        "the replay could not evaluate this version (out of budget)",
    ]
    assert version.todo[2].evidence == "" and version.todo[2].action == "start the replay"
    assert version.verdict == "mariadb-11.8: 3 steps not evaluated"
    assert report.exit_bits & CANNOT_RUN


def test_no_capture_and_an_unstarted_check_still_report_what_the_replay_said() -> None:
    [version] = build_report(None, [VersionEvidence(NEW, replay=planted_replay())], "not started").versions
    assert [item.area for item in version.todo][:2] == ["not_evaluated", "not_evaluated"]
    assert [item.area for item in version.todo][2:] == ["changes_results", "slower", "slower"]
    assert version.blockers == 0


def test_each_version_has_its_own_line_in_the_order_asked() -> None:
    other = VersionEvidence("mysql-9.7", check=check(), replay=replay([], exit_bits=0))
    report = build_report(capture(), [_planted(), other])
    assert [one.version for one in report.versions] == [NEW, "mysql-9.7"]
    assert report.versions[1].verdict == "mysql-9.7: nothing to do"
