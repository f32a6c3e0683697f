"""The fix search's order, stopping rule and budget on a simulated oracle: per round, the baseline,
the variant as it is and the candidate timed with seeded log-normal noise (a shared round effect, as
a busy machine gives every arm of one round), decided by the real `judge` (the replay's verdicts) and
searched by the real `search`. Deterministic: every number comes from one seed."""

import math
import random
from dataclasses import dataclass, field

import pytest

from upgradelab.fixsearch.candidates import Candidate
from upgradelab.fixsearch.search import Budget, SearchCancelled, Trial, judge, search

BASELINE_S, VARIANT_S = 0.010, 0.030  # the variant three times slower


def _candidate(name: str, source: str = "differs") -> Candidate:
    return Candidate(name, source, "simulated", {"optimizer_switch": f"{name}=on"}, "-")  # type: ignore[arg-type]


@dataclass
class Simulated:
    """Each candidate's true time (seconds; None: the server refuses it), whether its results equal
    the baseline's, the noise (sigma of the log per round and arm) and the seed."""

    truth: dict[str, float | None]
    equal: dict[str, bool] = field(default_factory=dict)
    sigma: float = 0.01
    seed: int = 7
    calls: list[tuple[str, int]] = field(default_factory=list)
    rounds: dict[str, dict[str, dict[int, list[float]]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.random = random.Random(self.seed)

    def __call__(self, candidate: Candidate, rounds: int) -> Trial:
        self.calls.append((candidate.name, rounds))
        true = self.truth[candidate.name]
        if true is None:
            return Trial(candidate.name, "refused", "the server refused it: 1231: unknown flag")
        arms = self.rounds.setdefault(candidate.name, {"base": {}, "var": {}, "cand": {}})
        done = len(arms["base"])
        for number in range(done + 1, done + rounds + 1):
            shared = self.random.gauss(0, self.sigma)  # the round's machine state, on every arm
            for arm, seconds in (("base", BASELINE_S), ("var", VARIANT_S), ("cand", true)):
                arms[arm][number] = [seconds * math.exp(shared + self.random.gauss(0, self.sigma))]
        equal = self.equal.get(candidate.name, True)
        return judge(candidate.name, arms["base"], arms["var"], arms["cand"], equal, done + rounds)


BIG = Budget(rounds=1000, minutes=60)


def test_candidates_are_tried_by_evidence_and_the_search_stops_at_the_first_that_restores() -> None:
    oracle = Simulated({"lever-a": BASELINE_S, "differs-a": VARIANT_S, "differs-b": BASELINE_S,
                        "differs-c": BASELINE_S, "plan-a": VARIANT_S})  # fmt: skip
    given = [_candidate("lever-a", "lever"), _candidate("differs-a"), _candidate("differs-b"),
             _candidate("differs-c"), _candidate("plan-a", "plan")]  # fmt: skip
    outcome = search(given, oracle, rounds=5, budget=BIG)
    assert [t.name for t in outcome.trials] == ["plan-a", "differs-a", "differs-b"]
    assert [t.status for t in outcome.trials] == ["does not restore", "does not restore", "restores"]
    assert outcome.outcome == "restored" and outcome.remedy == "differs-b"
    assert outcome.not_tried == ["differs-c", "lever-a"]
    assert outcome.rounds == sum(t.rounds for t in outcome.trials) >= 15
    restoring = outcome.trials[2]
    assert restoring.ratio_to_baseline is not None and restoring.ratio_to_variant is not None
    assert restoring.ratio_to_baseline.verdict == "no significant difference"
    assert restoring.ratio_to_variant.verdict == "improvement"  # a third of the variant's time
    assert restoring.variant_to_baseline is not None and restoring.variant_to_baseline.verdict == "regression"


def test_asked_for_all_it_measures_every_candidate_and_names_the_first_that_restores() -> None:
    oracle = Simulated({"a": BASELINE_S, "b": VARIANT_S, "c": BASELINE_S * 0.5})
    outcome = search([_candidate(n) for n in "abc"], oracle, rounds=5, budget=BIG, try_all=True)
    assert [t.name for t in outcome.trials] == ["a", "b", "c"]
    assert [t.status for t in outcome.trials] == ["restores", "does not restore", "restores"]
    assert outcome.trials[2].ratio_to_baseline is not None
    assert outcome.trials[2].ratio_to_baseline.verdict == "improvement"  # faster than the baseline restores
    assert outcome.outcome == "restored" and outcome.remedy == "a" and outcome.not_tried == []


def test_a_remedy_that_is_fast_but_changes_the_results_does_not_restore() -> None:
    oracle = Simulated({"wrong": BASELINE_S, "right": BASELINE_S}, equal={"wrong": False})
    outcome = search([_candidate("wrong"), _candidate("right")], oracle, rounds=5, budget=BIG)
    assert [(t.name, t.status) for t in outcome.trials] == [
        ("wrong", "does not restore"),
        ("right", "restores"),
    ]
    assert outcome.trials[0].reason == "its results differ from the baseline's"


def test_none_restoring_ends_no_remedy_found_with_every_candidate_tried_and_refusals_listed() -> None:
    oracle = Simulated({"a": VARIANT_S, "refused": None, "b": VARIANT_S * 0.8})
    outcome = search([_candidate("a"), _candidate("refused"), _candidate("b")], oracle, rounds=5, budget=BIG)
    assert outcome.outcome == "no remedy found" and outcome.remedy is None
    assert [(t.name, t.status) for t in outcome.trials] == [
        ("a", "does not restore"), ("refused", "refused"), ("b", "does not restore"),
    ]  # fmt: skip
    assert outcome.rounds == 10  # a refused candidate costs no round


def test_the_rounds_budget_stops_before_a_candidate_it_cannot_hold_and_lists_the_rest() -> None:
    oracle = Simulated({n: VARIANT_S for n in "abcd"})
    outcome = search([_candidate(n) for n in "abcd"], oracle, rounds=5, budget=Budget(rounds=12, minutes=60))
    assert outcome.outcome == "out of budget"
    assert [t.name for t in outcome.trials] == ["a", "b"] and outcome.not_tried == ["c", "d"]
    assert outcome.rounds == 10 <= 12


def test_the_minutes_budget_starts_nothing_once_spent() -> None:
    now = [0.0]

    def clock() -> float:
        return now[0]

    class Slow(Simulated):
        def __call__(self, candidate: Candidate, rounds: int) -> Trial:
            now[0] += 4 * 60  # each measurement takes four minutes
            return super().__call__(candidate, rounds)

    oracle = Slow({n: VARIANT_S for n in "abc"})
    outcome = search([_candidate(n) for n in "abc"], oracle, rounds=5, budget=Budget(1000, 7), clock=clock)
    assert [t.name for t in outcome.trials] == ["a", "b"] and outcome.not_tried == ["c"]
    assert outcome.outcome == "out of budget" and outcome.minutes == pytest.approx(8)


def test_an_undecided_candidate_gets_more_rounds_up_to_its_limit_within_the_budget() -> None:
    # 9 % above the baseline with noise: at 5 rounds neither "same" (the interval within 1 +/- 10 %)
    # nor a decided regression; the extension measures it again, five rounds at a time, to its limit
    oracle = Simulated({"near": BASELINE_S * 1.09}, sigma=0.06, seed=3)
    outcome = search([_candidate("near")], oracle, rounds=5, budget=BIG, max_rounds=15)
    assert oracle.calls == [("near", 5), ("near", 5), ("near", 5)]
    trial = outcome.trials[0]
    assert trial.status == "undecided" and trial.rounds == 15 == outcome.rounds
    assert outcome.outcome == "no remedy found"
    # the same candidate with a budget of 12 rounds: one look more (10 rounds), none past the budget
    oracle = Simulated({"near": BASELINE_S * 1.09}, sigma=0.06, seed=3)
    outcome = search([_candidate("near")], oracle, rounds=5, budget=Budget(12, 60), max_rounds=15)
    assert oracle.calls == [("near", 5), ("near", 5)] and outcome.rounds == 10


def test_a_decided_regression_is_not_measured_again() -> None:
    oracle = Simulated({"slow": VARIANT_S})
    search([_candidate("slow")], oracle, rounds=5, budget=BIG, max_rounds=15)
    assert oracle.calls == [("slow", 5)]


def test_a_cancel_from_the_oracle_ends_the_search_cancelled_with_its_trials() -> None:
    oracle = Simulated({"a": VARIANT_S, "b": BASELINE_S})

    def cancelling(candidate: Candidate, rounds: int) -> Trial:
        if candidate.name == "b":
            raise SearchCancelled()
        return oracle(candidate, rounds)

    outcome = search([_candidate("a"), _candidate("b")], cancelling, rounds=5, budget=BIG)
    assert outcome.outcome == "cancelled" and [t.name for t in outcome.trials] == ["a"]
    assert outcome.not_tried == ["b"]


def test_a_remedy_a_little_faster_than_the_baseline_restores_though_neither_same_nor_an_improvement() -> None:
    oracle = Simulated({"a bit faster": BASELINE_S * 0.91}, sigma=0.03, seed=5)
    outcome = search([_candidate("a bit faster")], oracle, rounds=5, budget=BIG)
    trial = outcome.trials[0]
    assert trial.ratio_to_baseline is not None
    assert (
        trial.ratio_to_baseline.verdict == "inconclusive"
    )  # its interval leaves 1 - 10 %, its ratio does not
    assert trial.ratio_to_baseline.high <= 1.10 and trial.status == "restores"
    assert outcome.outcome == "restored"


def test_a_larger_tolerance_lets_a_remedy_restore_that_is_decided_within_it() -> None:
    oracle = Simulated({"close": BASELINE_S * 1.25, "far": BASELINE_S * 2})
    base, var, cand = ({r: [BASELINE_S] for r in range(1, 6)}, {r: [VARIANT_S] for r in range(1, 6)}, {})
    for number in range(1, 6):
        cand[number] = [BASELINE_S * 1.25 * (1 + 0.01 * (number % 2))]
    assert judge("close", base, var, cand, True, 5).status == "does not restore"  # 25 % slower: a regression
    assert judge("close", base, var, cand, True, 5, tolerance=0.5).status == "restores"
    outcome = search([_candidate("far"), _candidate("close")], oracle, rounds=5, budget=BIG)
    assert [t.status for t in outcome.trials] == ["does not restore", "does not restore"]
