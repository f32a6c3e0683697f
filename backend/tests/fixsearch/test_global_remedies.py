"""Global remedies and their side effects on a simulated replay (issue 34, Deliver 4): the real
`search`, `judge`, effects.check_all and judge_effect on seeded log-normal rounds (test_search_oracle's
Simulated oracle for the fingerprint being fixed; every other fingerprint's true time without and with
the global setting given here). Deterministic: every number comes from a seed; the planted effects
are large (3x), the decisions the replay's verdicts."""

import math
import random
import time
from collections.abc import Callable

from tests.fixsearch.test_search_oracle import BASELINE_S, BIG, VARIANT_S, Simulated, _candidate
from upgradelab.fixsearch.candidates import Candidate
from upgradelab.fixsearch.effects import (
    FingerprintEffect,
    SideEffects,
    check_all,
    global_twin,
    judge_effect,
)
from upgradelab.fixsearch.search import search


class Replay:
    """The replay's other fingerprints: id -> (seconds on the variant as it is, with the setting,
    results equal), timed `rounds` rounds each with seeded noise and a shared round effect."""

    def __init__(self, others: dict[str, tuple[float, float, bool]], seed: int = 11) -> None:
        self.others, self.random = others, random.Random(seed)
        self.checked: list[str] = []
        self.candidates: list[str] = []

    def measure(self, fingerprint_id: str, rounds: int = 5) -> FingerprintEffect:
        self.checked.append(fingerprint_id)
        without, with_it, equal = self.others[fingerprint_id]
        before: dict[int, list[float]] = {}
        after: dict[int, list[float]] = {}
        for number in range(1, rounds + 1):
            shared = self.random.gauss(0, 0.01)
            before[number] = [without * math.exp(shared + self.random.gauss(0, 0.01))]
            after[number] = [with_it * math.exp(shared + self.random.gauss(0, 0.01))]
        return judge_effect(fingerprint_id, f"SELECT {fingerprint_id}", before, after, equal, rounds)

    def check(self, candidate: Candidate, minutes: float = 10,
              clock: Callable[[], float] = time.monotonic) -> SideEffects:  # fmt: skip
        assert candidate.scope == "global"  # only a global remedy is checked on the whole replay
        self.candidates.append(candidate.name)
        fingerprints = [(f, f"SELECT {f}") for f in self.others]
        return check_all(fingerprints, self.measure, rounds=5, minutes=minutes, clock=clock)


SAME = (BASELINE_S, BASELINE_S, True)


def test_a_restoring_setting_is_reverified_as_global_and_the_statement_it_slows_is_a_side_effect() -> None:
    # the setting that restores the fingerprint makes "planted" three times slower and changes the
    # results of "changed"; "untouched" is the same either way
    oracle = Simulated({"a": VARIANT_S, "b": BASELINE_S, "b (global)": BASELINE_S, "c": BASELINE_S})
    replay = Replay({"untouched": SAME, "planted": (BASELINE_S, 3 * BASELINE_S, True),
                     "changed": (BASELINE_S, BASELINE_S, False)})  # fmt: skip
    given = [_candidate("a"), _candidate("b"), _candidate("c")]
    outcome = search(given, oracle, rounds=5, budget=BIG, globalize=global_twin, check=replay.check)
    assert [(t.name, t.scope, t.status) for t in outcome.trials] == [
        ("a", "statement", "does not restore"),
        ("b", "statement", "restores"),
        ("b (global)", "global", "restores"),  # measured right after the statement-level remedy
    ]
    assert outcome.remedy == "b" and outcome.global_remedy == "b (global)" and outcome.not_tried == ["c"]
    assert replay.candidates == ["b (global)"]  # the statement-level remedy needs no check
    assert replay.checked == ["untouched", "planted", "changed"]  # every other fingerprint
    effects = outcome.trials[2].side_effects
    assert effects is not None and effects["complete"] is True and effects["not_checked"] == []
    listed = {e["fingerprint_id"]: e for e in effects["side_effects"]}
    assert list(listed) == ["planted", "changed"]
    slowed = listed["planted"]
    assert slowed["verdict"] == "regression" and slowed["results_equal"] is True
    assert 2.5 < slowed["ratio"]["ratio"] < 3.5 and slowed["ratio"]["low"] > 1.1  # with / without, interval
    assert listed["changed"]["results_equal"] is False
    assert {e["fingerprint_id"]: e["side_effect"] for e in effects["checked"]} == {
        "untouched": False, "planted": True, "changed": True,
    }  # fmt: skip
    assert "2 side effects on the 3 other fingerprints" in outcome.trials[2].reason
    assert outcome.rounds == 15  # the check's rounds are its own budget's
    assert effects["rounds"] == 15 and effects["rounds_per_fingerprint"] == 5


def test_a_global_remedy_without_side_effects_says_it_checked_every_fingerprint() -> None:
    oracle = Simulated({"b": BASELINE_S, "b (global)": BASELINE_S})
    replay = Replay({"x": SAME, "y": (BASELINE_S, 0.5 * BASELINE_S, True)})  # y gets faster: no side effect
    outcome = search(
        [_candidate("b")], oracle, rounds=5, budget=BIG, globalize=global_twin, check=replay.check
    )
    trial = outcome.trials[-1]
    assert trial.status == "restores" and trial.side_effects is not None
    assert trial.side_effects["side_effects"] == [] and trial.side_effects["complete"] is True
    assert "no side effect: checked on all 2 other fingerprints of the replay" in trial.reason
    verdicts = [e["verdict"] for e in trial.side_effects["checked"]]
    assert verdicts == ["no significant difference", "improvement"]


def test_a_global_remedy_is_never_said_to_restore_without_its_check() -> None:
    twin = global_twin(_candidate("b"))
    assert twin is not None
    oracle = Simulated({twin.name: BASELINE_S})
    outcome = search([twin], oracle, rounds=5, budget=BIG)  # no check given
    assert outcome.trials[0].status == "undecided" and outcome.trials[0].side_effects is None
    assert "side effects were not checked" in outcome.trials[0].reason
    assert outcome.outcome == "no remedy found" and outcome.global_remedy is None


def test_a_check_the_budget_cuts_short_leaves_the_global_remedy_undecided_with_what_it_left() -> None:
    now = [0.0]

    class Slow(Replay):
        def measure(self, fingerprint_id: str, rounds: int = 5) -> FingerprintEffect:
            now[0] += 4 * 60  # each fingerprint takes four minutes
            return super().measure(fingerprint_id, rounds)

    replay = Slow({"x": SAME, "y": SAME, "z": SAME})
    oracle = Simulated({"b": BASELINE_S, "b (global)": BASELINE_S})
    outcome = search([_candidate("b")], oracle, rounds=5, budget=BIG, globalize=global_twin,
                     check=lambda c: replay.check(c, minutes=7, clock=lambda: now[0]))  # fmt: skip
    trial = outcome.trials[-1]
    assert trial.side_effects is not None and trial.side_effects["not_checked"] == ["z"]
    assert trial.status == "undecided" and "checked on 2 of 3 other fingerprints" in trial.reason
    assert outcome.remedy == "b" and outcome.global_remedy is None  # the statement-level one stands


def test_a_twin_refused_or_not_restoring_its_own_fingerprint_is_not_checked() -> None:
    replay = Replay({"x": SAME})
    oracle = Simulated({"b": BASELINE_S, "b (global)": None, "c": BASELINE_S, "c (global)": VARIANT_S})
    for name, status in (("b", "refused"), ("c", "does not restore")):
        outcome = search([_candidate(name)], oracle, rounds=5, budget=BIG, globalize=global_twin,
                         check=replay.check)  # fmt: skip
        assert outcome.trials[-1].status == status and outcome.trials[-1].side_effects is None
        assert outcome.remedy == name and outcome.global_remedy is None
    assert replay.candidates == []


def test_the_global_twin_of_a_setting_is_its_option_line_and_set_global() -> None:
    switch = Candidate("sj", "differs", "semijoin on the baseline", {"optimizer_switch": "semijoin=on"}, "-")
    twin = global_twin(switch)
    assert twin is not None and twin.scope == "global" and twin.name == "sj (global)"
    assert twin.apply == "optimizer_switch='semijoin=on'"
    assert twin.extra["set_global"] == "SET GLOBAL optimizer_switch='semijoin=on'"
    variable = Candidate("dive", "lever", "-", {"eq_range_index_dive_limit": "0"}, "-")
    assert global_twin(variable).apply == "eq_range_index_dive_limit=0"  # type: ignore[union-attr]
    hint = Candidate("idx", "plan", "-", {}, "/*+ INDEX(t k) */", indexes={"t": "k"})
    assert global_twin(hint) is None  # an index hint names one statement's tables
    assert global_twin(twin) is None


def test_judge_effect_reads_with_over_without() -> None:
    rounds = 5
    without = {r: [0.010] for r in range(1, rounds + 1)}
    with_it = {r: [0.030 * (1 + 0.001 * r)] for r in range(1, rounds + 1)}
    effect = judge_effect("f", "SELECT 1", without, with_it, True, rounds)
    assert effect.ratio is not None and effect.ratio.ratio > 2.9 and effect.is_side_effect
    assert not judge_effect("f", "SELECT 1", with_it, without, True, rounds).is_side_effect


def test_a_fingerprint_measured_without_the_setting_and_not_with_it_is_a_side_effect() -> None:
    # its statements timed out (or failed) with the setting in every round: no ratio, said
    without = {r: [0.010] for r in range(1, 6)}
    effect = judge_effect("f", "SELECT 1", without, {}, True, 5)
    assert effect.ratio is None and effect.is_side_effect
    assert effect.error == "no round measured with the setting (timed out or failed)"
    assert not judge_effect("f", "SELECT 1", {}, {}, True, 5).is_side_effect  # not measured either way
