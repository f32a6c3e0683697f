"""ddmin over candidates with a pure fake oracle (no server): what it finds, what it costs, budgets."""

import math
import random
from collections.abc import Callable

import pytest

from upgradelab.attribution import report
from upgradelab.attribution.search import (
    ALPHA,
    CONFIRM_RUNS,
    Outcome,
    OutOfBudget,
    Subset,
    beside,
    chunks,
    holm,
    p_above_zero,
    pooled_all,
    screening,
    search,
    undecided,
)

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
    both = pooled_all([first, Outcome(0.95, 0.75, 1.15, True)], 0.8)
    assert 0.79 < both.share < 0.95 and both.closes
    assert both.high - both.low < first.high - first.low


def test_runs_that_disagree_beyond_their_intervals_pool_into_a_wider_interval() -> None:
    # two runs of all candidates reverted, each undecided against 80 %: the fixed-effect mean of 0.95 and
    # 0.55 would read 0.69 [0.60, 0.79], "decided below"; their disagreement is between-run variance
    high_run, low_run = Outcome(0.95, 0.74, 1.16, True), Outcome(0.55, 0.44, 0.66, False)
    both = pooled_all([high_run, low_run], 0.8)
    se = [(o.high - o.low) / 2 / 1.959964 for o in (high_run, low_run)]
    fixed_half = 1.959964 * (1 / sum(1 / s**2 for s in se)) ** 0.5
    assert both.high - both.low > 2 * fixed_half  # tau^2 > 0 widened it
    assert undecided(both, 0.8)  # so the root test is measured again rather than decided
    # runs that agree pool exactly as the inverse-variance mean
    agree = pooled_all([Outcome(0.9, 0.7, 1.1, True), Outcome(0.92, 0.72, 1.12, True)], 0.8)
    assert abs(agree.share - 0.91) < 1e-9
    assert abs((agree.high - agree.low) / 2 - 0.2 / 2**0.5) < 1e-6
    assert pooled_all([high_run], 0.8) == high_run


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


def test_holm_steps_down_and_stops_at_the_first_undecided() -> None:
    decided = holm({("a",): 0.001, ("b",): 0.015, ("c",): 0.04, ("d",): 0.5}, 0.05)
    assert [decided[(k,)][0] for k in "abcd"] == [True, True, False, False]
    assert [decided[(k,)][1] for k in "abc"] == pytest.approx([0.05 / 4, 0.05 / 3, 0.05 / 2])
    # c: 0.04 > 0.025, Holm stops there; d is compared at most with c's level
    assert decided[("d",)][0] is False
    assert holm({}, 0.05) == {}


def test_the_one_sided_p_value_matches_the_one_sided_bound() -> None:
    # 0.2 [0.0, 0.4]: the two-sided 95 % interval touches 0, the one-sided 95 % bound is above it
    assert p_above_zero(Outcome(0.2, 0.0, 0.4, False)) == pytest.approx(0.025, abs=1e-4)
    assert p_above_zero(Outcome(0.2, -0.2, 0.6, False)) > 0.05
    assert p_above_zero(Outcome(0.0, 0.0, 0.0, False, error="refused")) == 1.0


def noisy(
    effects: dict[str, float], half: float, rng: random.Random
) -> Callable[[list[Subset]], dict[Subset, Outcome]]:
    """An oracle whose share is the sum of the members' effects plus normal noise of 95 % half-width
    `half` (the interval honest about it)."""

    def oracle(subsets: list[Subset]) -> dict[Subset, Outcome]:
        out = {}
        for subset in subsets:
            share = sum(effects.get(n, 0.0) for n in subset) + rng.gauss(0, half / 1.96)
            out[subset] = Outcome(share, share - half, share + half, share >= 0.8)
        return out

    return oracle


def test_a_setting_left_undecided_by_screening_is_confirmed_on_fresh_runs() -> None:
    screened: dict[Subset, Outcome] = {("skip-log-bin",): Outcome(0.17, -0.01, 0.36, False)}
    inner, calls = additive({"skip-log-bin": 0.2, "innodb-file-per-table": 0.85}, noise=0.15)

    def oracle(subsets: list[Subset]) -> dict[Subset, Outcome]:
        out = inner(subsets)
        return {s: screened.get(s, o) for s, o in out.items()}  # ddmin's one measurement: undecided

    found = search(NAMES, oracle)
    assert found.found == ("innodb-file-per-table",)
    assert [b.subset for b in screening(found)] == [("skip-log-bin",)]
    assert not screening(found)[0].decided
    before = len(calls)
    beside(found, inner, batch=2, runs=2)
    # skip-log-bin and the five never measured alone (one group) share a run; two runs
    assert len(calls) - before == 2 and found.beside_complete
    result = report.build(found, {}, 0.8, runs=len(calls), minutes=1.0)
    [also] = result["also"]
    assert also["name"] == "skip-log-bin" and also["decided_by"] == "confirmation" and also["runs"] == 2
    assert also["alone"]["share"] == pytest.approx(0.2)  # the fresh runs only: not the screening 0.17
    assert also["screening"]["share"] == pytest.approx(0.17)
    group = next(b for b in result["beside"] if b["stage"] == "group")
    assert set(group["subset"]) == set(NAMES[2:]) and not group["decided"]
    assert result["outcome"] == "explained" and result["set"] == ["innodb-file-per-table"]


def test_a_setting_that_moves_nothing_is_not_named_after_a_lucky_screening() -> None:
    screened: dict[Subset, Outcome] = {("a",): Outcome(0.2, -0.05, 0.45, False)}
    inner, _ = additive({"innodb-file-per-table": 0.9}, noise=0.15)

    def oracle(subsets: list[Subset]) -> dict[Subset, Outcome]:
        return {s: screened.get(s, o) for s, o in inner(subsets).items()}

    found = search(["innodb-file-per-table", "a", "b", "c"], oracle)
    beside(found, inner)
    result = report.build(found, {}, 0.8, runs=0, minutes=0.0)
    assert result["also"] == []
    confirmed = next(b for b in result["beside"] if b["stage"] == "confirmation")
    assert (
        confirmed["subset"] == ["a"]
        and confirmed["share"] == pytest.approx(0.0)
        and confirmed["runs"] == CONFIRM_RUNS
    )


def test_a_setting_never_measured_alone_is_found_by_splitting_its_group() -> None:
    oracle, calls = additive({"f": 0.9, "c": 0.3})
    names = ["f", "a", "b", "c", "d", "e"]
    found = search(names, oracle)
    assert found.found == ("f",) and found.outcome(["c"]) is None  # a and b were measured alone
    beside(found, oracle)
    result = report.build(found, {}, 0.8, runs=len(calls), minutes=1.0)
    assert [(a["name"], a["decided_by"]) for a in result["also"]] == [("c", "group")]
    groups = [(b["subset"], b["decided"], b["level"]) for b in result["beside"] if b["stage"] == "group"]
    # the group at the whole confirmation level, then each half at its share of its parent's level
    assert groups[0][0] == ["c", "d", "e"] and groups[0][1]
    assert (["c", "d"], True, pytest.approx(groups[0][2] * 2 / 3)) in groups
    assert (["c"], True, pytest.approx(groups[0][2] / 3)) in groups
    assert not any(decided for subset, decided, _ in groups if "c" not in subset)


def test_the_budget_ending_beside_the_set_keeps_the_set_explained() -> None:
    inner, calls = additive({"f": 0.9, "s": 0.2}, noise=0.3)
    found = search(["s", "f", "a", "b"], inner)
    assert found.found == ("f",)

    def empty(subsets: list[Subset]) -> dict[Subset, Outcome]:
        raise OutOfBudget()

    beside(found, empty)
    result = report.build(found, {}, 0.8, runs=len(calls), minutes=1.0)
    assert result["outcome"] == "explained" and result["set"] == ["f"]
    assert not result["beside_complete"] and result["also"] == []
    assert all(b["share"] is None for b in result["beside"] if b["stage"] != "screening")


def test_beside_the_set_names_what_matters_and_rarely_anything_else() -> None:
    """The constructed case's shape with an honest noisy oracle (shares +/- 0.19 per run, as measured at
    6 rounds on a quiet host): skip-log-bin (0.2 of the gap) is named in most searches (~92 % of 1000
    with other seeds); a setting that does not matter is named beside the set in at most ALPHA of them
    (~1 %: the five irrelevant ones only reach confirmation after a lucky screening)."""
    rng = random.Random(21)
    effects = {"innodb-file-per-table": 0.8, "skip-log-bin": 0.2}
    named_right = named_wrong = 0
    trials = 300
    for _ in range(trials):
        oracle = noisy(effects, 0.19, rng)
        found = search(NAMES, oracle)
        beside(found, oracle)
        also = {b.subset[0] for b in found.beside or [] if b.decided and len(b.subset) == 1}
        named_right += (set(found.found or ()) | also) >= set(effects)
        named_wrong += bool(also - set(effects))
    assert named_right / trials > 0.85
    assert named_wrong / trials < ALPHA
