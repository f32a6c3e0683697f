"""The extension's looks (search.py docstring): a candidate judged after its rounds and again after each
extension step, stopped at the first look that decides it, has more chances of a false "restores"
than one judged once. On the simulated oracle (seeded log-normal noise, a shared round effect, the
real `judge` and `search`), a candidate exactly at the tolerance's edge (1.10 x the baseline: not
"at most 10 % slower" by any margin) must restore at most as often as one look at 95 % allows, 2.5 %
(the interval's upper end below 1.10 on one side); measured over many seeded trials, with the looks
corrected as runs correct theirs (verdicts.confidence_for) and, to show the test can fail, without."""

import math
import random
from collections.abc import Callable

from upgradelab.fixsearch.candidates import Candidate
from upgradelab.fixsearch.search import Budget, Trial, judge, search, search_looks
from upgradelab.measurement import THRESHOLD

ROUNDS = 10  # 10 -> 30 rounds: five looks
TRIALS = 150
NOMINAL = (1 - 0.95) / 2  # one side of one 95 % interval
EDGE = 1 + THRESHOLD


def edge_oracle(noise: random.Random, looks: int, sigma: float) -> Callable[[Candidate, int], Trial]:
    """A simulated oracle of one candidate at EDGE x the baseline (its own rounds)."""
    arms: dict[str, dict[int, list[float]]] = {"base": {}, "var": {}, "cand": {}}

    def oracle(candidate: Candidate, rounds: int) -> Trial:
        done = len(arms["base"])
        for number in range(done + 1, done + rounds + 1):
            shared = noise.gauss(0, sigma)  # the round's machine state, on every arm
            for arm, seconds in (("base", 1.0), ("var", 3.0), ("cand", EDGE)):
                arms[arm][number] = [seconds * math.exp(shared + noise.gauss(0, sigma))]
        return judge(candidate.name, arms["base"], arms["var"], arms["cand"], True, done + rounds,
                     looks=looks)  # fmt: skip

    return oracle


def false_restores(corrected: bool, seed: int = 11, sigma: float = 0.08) -> float:
    """The share of TRIALS searches that said "restores" of a candidate at EDGE x the baseline."""
    noise = random.Random(seed)
    looks = search_looks(ROUNDS) if corrected else 1
    candidate = Candidate("edge", "differs", "simulated", {"optimizer_switch": "x=on"}, "-")
    restored = 0
    for _ in range(TRIALS):
        oracle = edge_oracle(noise, looks, sigma)
        outcome = search([candidate], oracle, rounds=ROUNDS, budget=Budget(rounds=1000, minutes=60))
        restored += outcome.trials[0].status == "restores"
    return restored / TRIALS


def test_the_looks_are_five_for_ten_rounds_extended_to_thirty() -> None:
    assert search_looks(10) == 5 and search_looks(5) == 3 and search_looks(10, 10) == 1


def test_corrected_looks_keep_false_restores_within_one_looks_rate_and_uncorrected_do_not() -> None:
    uncorrected = false_restores(corrected=False)
    corrected = false_restores(corrected=True)
    assert uncorrected > NOMINAL, uncorrected  # the inflation the correction is for
    assert corrected <= NOMINAL, corrected
