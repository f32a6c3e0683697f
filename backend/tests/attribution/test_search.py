"""ddmin over candidates with a pure fake oracle (no server): what it finds, what it costs, budgets."""

import math
from collections.abc import Callable

import pytest

from upgradelab.attribution import report
from upgradelab.attribution.search import Outcome, OutOfBudget, Subset, chunks, pooled, search, undecided

NAMES = ["skip-log-bin", "innodb-file-per-table", "a", "b", "c", "d", "e"]


def additive(
    effects: dict[str, float], target: float = 0.8, noise: float = 0.05
) -> tuple[Callable[[list[Subset]], dict[Subset, Outcome]], list[list[Subset]]]:
    """An oracle whose share of a subset is the sum of its members' effects; counts its calls."""
    calls: list[list[Subset]] = []

    def oracle(subsets: list[Subset]) -> dict[Subset, Outcome]:
        calls.append(subsets)
        out = {}
        for subset in subsets:
            share = sum(effects.get(name, 0.0) for name in subset)
            out[subset] = Outcome(share, share - noise, share + noise, share >= target)
        return out

    return oracle, calls


def test_chunks_keep_order_and_cover_everything() -> None:
    assert chunks(NAMES, 2) == [tuple(NAMES[:4]), tuple(NAMES[4:])]
    assert [len(c) for c in chunks(NAMES, 3)] == [3, 2, 2]
    assert chunks(["x"], 4) == [("x",)]


def test_two_settings_that_matter_are_found_and_nothing_else() -> None:
    oracle, calls = additive({"skip-log-bin": 0.26, "innodb-file-per-table": 0.74})
    found = search(NAMES, oracle, batch=2)
    assert found.complete
    assert set(found.found or ()) == {"skip-log-bin", "innodb-file-per-table"}
    assert len(calls) == 4  # all; two halves; two quarters; the two singletons
    result = report.build(found, {}, 0.8, runs=len(calls), minutes=1.0)
    members = {m["name"]: m for m in result["members"]}
    assert members["innodb-file-per-table"]["contribution"] == pytest.approx(0.74)
    assert members["skip-log-bin"]["contribution"] == pytest.approx(0.26)
    # each contribution's interval: two +/-0.05 intervals in quadrature
    assert members["skip-log-bin"]["high"] - members["skip-log-bin"]["low"] == pytest.approx(
        2 * math.hypot(0.05, 0.05)
    )
    assert result["outcome"] == "explained" and not result["interacts"]
    assert result["unexplained"] == pytest.approx(0.0)


def test_one_setting_alone_is_found_in_a_few_batches() -> None:
    oracle, calls = additive({"d": 0.95})
    found = search(NAMES, oracle, batch=2)
    assert found.found == ("d",)
    assert len(calls) <= 5


def test_interacting_settings_report_the_interaction() -> None:
    def oracle(subsets: list[Subset]) -> dict[Subset, Outcome]:
        # a and b only matter together (e.g. a buffer that only helps with a flush method)
        both = {s: (1.0 if {"a", "b"} <= set(s) else 0.0) for s in subsets}
        return {s: Outcome(v, v - 0.05, v + 0.05, v >= 0.8) for s, v in both.items()}

    found = search(NAMES, oracle)
    result = report.build(found, {}, 0.8, runs=0, minutes=0.0)
    assert set(result["set"]) == {"a", "b"}
    assert result["interacts"] and result["interaction"] == pytest.approx(-1.0)


def test_a_gap_no_candidate_explains_ends_unexplained_with_its_share() -> None:
    oracle, calls = additive({"a": 0.1, "b": 0.05})
    found = search(NAMES, oracle)
    result = report.build(found, {}, 0.8, runs=len(calls), minutes=0.5)
    assert found.complete and found.found is None and len(calls) == 1
    assert result["outcome"] == "unexplained"
    assert result["set"] == [] and result["members"] == []
    assert result["unexplained"] == pytest.approx(0.85)


def test_candidates_moving_the_time_the_wrong_way_leave_the_whole_gap_unexplained_not_more() -> None:
    oracle, _ = additive({"a": -0.2, "b": 0.05})
    result = report.build(search(NAMES, oracle), {}, 0.8, runs=1, minutes=0.5)
    assert result["outcome"] == "unexplained" and result["all_share"]["share"] == pytest.approx(-0.15)
    assert result["unexplained"] == 1.0 and result["set"] == [] and result["lines"] == []


def test_out_of_budget_reports_what_it_has() -> None:
    inner, _ = additive({"skip-log-bin": 0.26, "innodb-file-per-table": 0.74})
    used: list[int] = []

    def budgeted(subsets: list[Subset]) -> dict[Subset, Outcome]:
        if len(used) == 2:
            raise OutOfBudget()
        used.append(1)
        answer: dict[Subset, Outcome] = inner(subsets)
        return answer

    found = search(NAMES, budgeted)
    result = report.build(found, {}, 0.8, runs=2, minutes=0.1)
    assert not found.complete
    assert result["outcome"] == "out of budget"
    assert set(result["set"]) == set(NAMES[:4])  # the smallest closing set found so far


def test_an_undecided_outcome_pooled_with_a_second_measurement_narrows() -> None:
    first = Outcome(0.79, 0.54, 1.04, False)
    assert undecided(first, 0.8)
    assert not undecided(Outcome(0.3, 0.1, 0.5, False), 0.8)
    both = pooled(first, Outcome(0.95, 0.75, 1.15, True), 0.8)
    assert 0.79 < both.share < 0.95 and both.closes
    assert both.high - both.low < first.high - first.low


def test_a_subset_the_server_refuses_never_closes_and_is_reported() -> None:
    def refusing(subsets: list[Subset]) -> dict[Subset, Outcome]:
        return {s: Outcome(0.0, 0.0, 0.0, False, error="unknown variable 'x'") for s in subsets}

    found = search(NAMES, refusing)
    result = report.build(found, {}, 0.8, runs=1, minutes=0.1)
    assert result["outcome"] == "cannot be tested" and result["unexplained"] is None
    assert result["tested"][0]["error"] == "unknown variable 'x'"


def test_a_setting_that_matters_alone_but_overlaps_with_the_set_is_named_beside_it() -> None:
    def overlapping(subsets: list[Subset]) -> dict[Subset, Outcome]:
        # "f" alone closes 90 %, "s" alone 50 %, both 100 %: "s" overlaps with "f"
        def share(s: Subset) -> float:
            return 1.0 if {"f", "s"} <= set(s) else 0.9 if "f" in s else 0.5 if "s" in s else 0.0

        return {s: Outcome(share(s), share(s) - 0.1, share(s) + 0.1, share(s) >= 0.8) for s in subsets}

    found = search(["s", "f", "a", "b"], overlapping)
    result = report.build(found, {}, 0.8, runs=0, minutes=0.0)
    assert result["set"] == ["f"]
    assert [other["name"] for other in result["also"]] == ["s"]
