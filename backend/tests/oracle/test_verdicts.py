"""Verdicts (results/stats/verdicts.py) against the simulated oracle: the real interval and decision on
seeded rounds of a planted ratio. What the module promises and is asserted here over many trials:
the 95 % interval holds the true ratio in 95 % of runs (so an A/A pair is called a regression or an
improvement at most 5 % of the time), a planted effect the noise allows is decided in its direction
and never the other way, an effect below the smallest detectable change stays "inconclusive", the A/A
control's floor keeps a disturbed run from a verdict, and fewer than MIN_ROUNDS rounds decide nothing."""

from collections import Counter

import numpy as np
import pytest

from tests.oracle.simulate import (
    BURSTS,
    LOADED,
    QUIET,
    Noise,
    as_rounds,
    at_least,
    at_most,
    simulate,
)
from upgradelab.results.stats import verdicts

WRONG = {"regression": "improvement", "improvement": "regression"}


def _trials(
    seed: int, ratio: float, rounds: int, noise: Noise, trials: int, block: int = 5
) -> list[verdicts.Interval]:
    """The product's paired interval of `trials` simulated runs (baseline, variant at `ratio`)."""
    values = simulate(np.random.default_rng(seed), [1.0, ratio], rounds, block, noise, trials)
    found = [verdicts.interval(as_rounds(one[0]), as_rounds(one[1]), paired=True) for one in values]
    assert all(i is not None for i in found)
    return [i for i in found if i is not None]


@pytest.mark.parametrize(
    ("noise", "trials"),
    [(QUIET, 150), (LOADED, 250), (BURSTS, 150)],
    ids=["quiet host", "loaded host", "load window"],
)
def test_an_aa_pair_is_called_a_regression_or_improvement_at_most_as_often_as_the_interval_promises(
    noise: Noise, trials: int
) -> None:
    found = _trials(11, 1.0, 10, noise, trials)
    missed = sum(not (i.low <= 1.0 <= i.high) for i in found) / trials
    verdict = Counter(verdicts.decide(i).verdict for i in found)  # type: ignore[union-attr]
    false = (verdict["regression"] + verdict["improvement"]) / trials
    assert missed <= at_most(1 - verdicts.CONFIDENCE, trials)
    assert false <= at_most(1 - verdicts.CONFIDENCE, trials)
    # two-sided: neither tail takes the whole error (a one-sided interval would put it all on one)
    assert max(verdict["regression"], verdict["improvement"]) / trials <= at_most(0.025, trials)


@pytest.mark.parametrize(
    ("ratio", "rounds", "noise", "expected", "share"),
    [
        (1.5, 20, LOADED, "regression", 0.9),
        (0.88, 10, QUIET, "improvement", 0.9),
        # at the edge of what 60 loaded rounds resolve (median mde ~7.6 % against a 12.8 % change):
        # decided in ~90 % of runs (88-95 % over seeds), the rest inconclusive, never a regression
        (0.88, 60, LOADED, "improvement", 0.8),
    ],
    ids=["1.5x, 20 rounds, loaded", "0.88x, 10 rounds, quiet", "0.88x, 60 rounds, loaded"],
)
def test_a_planted_effect_the_rounds_can_resolve_is_decided_in_its_direction_and_never_the_other(
    ratio: float, rounds: int, noise: Noise, expected: str, share: float
) -> None:
    trials = 100
    found = _trials(12, ratio, rounds, noise, trials)
    seen = Counter(verdicts.decide(i).verdict for i in found)  # type: ignore[union-attr]
    assert seen[expected] / trials >= share, seen
    assert seen[WRONG[expected]] == 0, seen
    # and the interval holds the planted ratio as often as it says
    assert sum(not (i.low <= ratio <= i.high) for i in found) / trials <= at_most(0.05, trials)


def test_an_effect_below_the_smallest_detectable_change_stays_inconclusive_not_guessed() -> None:
    trials = 100
    found = _trials(13, 1.04, 10, LOADED, trials)  # 4 %: a sixth of the ~24 % this noise lets show
    assert np.median([i.mde for i in found]) > 0.15
    seen = Counter(verdicts.decide(i).verdict for i in found)  # type: ignore[union-attr]
    assert seen["inconclusive"] / trials >= at_least(0.9, trials), seen
    assert seen["no significant difference"] == 0  # a 4 % change under a 24 % mde is not "the same"
    assert seen["improvement"] / trials <= at_most(0.025, trials)


def test_a_change_twice_the_reported_smallest_detectable_change_is_decided() -> None:
    """The mde is what the interval can resolve: an A/A run's median mde, doubled and planted, is
    decided (its half-width is about one mde, the planted log ratio about two)."""
    trials = 80
    mde = float(np.median([i.mde for i in _trials(14, 1.0, 10, LOADED, trials)]))
    found = _trials(15, (1 + mde) ** 2, 10, LOADED, trials)
    seen = Counter(verdicts.decide(i).verdict for i in found)  # type: ignore[union-attr]
    assert seen["regression"] / trials >= 0.9, (mde, seen)


def test_the_aa_floor_keeps_a_run_whose_own_control_drifted_from_a_verdict() -> None:
    """Three variants per run: baseline, a variant 1.25x slower, the A/A control. In the runs where
    a load burst lands on the variant and the control alike (simulated as both 1.25x: the control
    is then a "regression" too), the floor overlaps and the variant is read "inconclusive"; in
    undisturbed runs the floor sits at 1 and the 1.25x is decided."""
    trials = 50
    rng = np.random.default_rng(16)
    for control, expected in ((1.25, "inconclusive"), (1.0, "regression")):
        values = simulate(rng, [1.0, 1.25, control], 20, 5, QUIET, trials)
        seen: Counter[str] = Counter()
        for one in values:
            base = as_rounds(one[0])
            floor = verdicts.interval(base, as_rounds(one[2]), paired=True)
            found = verdicts.interval(base, as_rounds(one[1]), paired=True)
            seen[verdicts.decide(found, floor=floor).verdict] += 1  # type: ignore[union-attr]
        assert seen[expected] / trials >= 0.9, (control, seen)
        assert seen["improvement"] == 0


def test_runs_compared_across_runs_unpaired_keep_their_coverage_under_round_drift() -> None:
    """Across runs the rounds are not paired (Welch on the log round values): the round drift the
    pairing would cancel is now noise, and the interval still holds the true ratio 95 % of the time."""
    trials = 100
    rng = np.random.default_rng(17)
    noise = Noise(block_sd=0.04, round_sd=0.15)
    first = simulate(rng, [1.0], 10, 5, noise, trials)
    second = simulate(rng, [1.2], 10, 5, noise, trials)
    found = [
        verdicts.interval(as_rounds(a[0]), as_rounds(b[0]), paired=False)
        for a, b in zip(first, second, strict=True)
    ]
    assert all(i is not None and i.method == "unpaired rounds" for i in found)
    missed = sum(not (i.low <= 1.2 <= i.high) for i in found if i is not None) / trials
    assert missed <= at_most(0.05, trials)


def test_fewer_than_min_rounds_never_give_a_verdict_whatever_the_effect() -> None:
    rng = np.random.default_rng(18)
    values = simulate(rng, [1.0, 3.0], verdicts.MIN_ROUNDS - 1, 5, QUIET, 20)
    for one in values:
        found = verdicts.interval(as_rounds(one[0]), as_rounds(one[1]), paired=True)
        assert verdicts.decide(found).verdict == "insufficient rounds"  # type: ignore[union-attr]
        single = verdicts.interval({1: list(one[0, 0])}, {1: list(one[1, 0])}, paired=True)
        assert single is not None and single.method == "within-block bootstrap"
        assert verdicts.decide(single).verdict == "insufficient rounds"  # type: ignore[union-attr]
