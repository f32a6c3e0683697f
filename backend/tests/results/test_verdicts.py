"""Round statistics on synthetic runs: a known shift is found, a null is not, too little is said so."""

import numpy as np
import pytest

from upgradelab.results.stats.verdicts import MIN_ROUNDS, Interval, Rounds, decide, interval

BLOCK = 5  # iterations per block


def _run(
    rng: np.random.Generator,
    rounds: int,
    shift: float,
    round_noise: float,
    own_noise: float,
    base: float = 1.0,
) -> tuple[Rounds, Rounds]:
    """Baseline and variant block values per round: a round factor both share (what the machine does
    during the round), each variant's own per-round noise, and iteration noise inside the block."""
    baseline: dict[int, list[float]] = {}
    variant: dict[int, list[float]] = {}
    for r in range(1, rounds + 1):
        shared = rng.lognormal(0, round_noise)
        for side, factor in ((baseline, 1.0), (variant, shift)):
            level = base * factor * shared * rng.lognormal(0, own_noise)
            side[r] = list(level * rng.lognormal(0, 0.02, BLOCK))
    return baseline, variant


def _verdicts(shift: float, seeds: int, own_noise: float, higher_is_better: bool = False) -> list[str]:
    out: list[str] = []
    for seed in range(seeds):
        baseline, variant = _run(np.random.default_rng(seed), 10, shift, 0.10, own_noise)
        decision = decide(interval(baseline, variant, paired=True), 0.05, higher_is_better)
        assert decision is not None
        out.append(decision.verdict)
    return out


def test_a_15_percent_slowdown_over_10_noisy_rounds_is_a_regression() -> None:
    verdicts = _verdicts(1.15, 100, own_noise=0.03)
    assert verdicts.count("regression") >= 95
    assert "improvement" not in verdicts


def test_with_10_percent_noise_of_its_own_per_variant_the_shift_is_never_reversed() -> None:
    verdicts = _verdicts(1.15, 100, own_noise=0.10)
    assert verdicts.count("regression") >= 60  # ~80 % power at 10 rounds; the rest says inconclusive
    assert set(verdicts) <= {"regression", "inconclusive"}


@pytest.mark.parametrize("own_noise", [0.03, 0.10])
def test_a_against_a_gives_a_false_verdict_in_at_most_5_percent_of_runs(own_noise: float) -> None:
    verdicts = _verdicts(1.0, 400, own_noise=own_noise)
    false = sum(v in {"regression", "improvement"} for v in verdicts)
    assert false / len(verdicts) <= 0.05


def test_a_against_a_with_little_noise_is_no_significant_difference() -> None:
    verdicts = _verdicts(1.0, 50, own_noise=0.01)
    assert verdicts.count("no significant difference") >= 48


def test_higher_throughput_is_an_improvement_and_lower_a_regression() -> None:
    assert set(_verdicts(1.25, 20, own_noise=0.03, higher_is_better=True)) == {"improvement"}
    assert set(_verdicts(0.75, 20, own_noise=0.03, higher_is_better=True)) == {"regression"}


def test_too_much_noise_is_inconclusive_with_its_smallest_detectable_change() -> None:
    baseline, variant = _run(np.random.default_rng(7), 6, 1.04, 0.10, 0.20)
    found = interval(baseline, variant, paired=True)
    decision = decide(found, 0.05)
    assert found is not None and decision is not None
    assert decision.verdict == "inconclusive"
    assert found.mde == pytest.approx(np.sqrt(found.high / found.low) - 1)
    assert found.mde > 0.05 and f"{found.mde:.1%}" in decision.reason


def test_fewer_than_5_rounds_is_not_a_verdict_even_with_a_large_shift() -> None:
    baseline, variant = _run(np.random.default_rng(1), MIN_ROUNDS - 1, 2.0, 0.01, 0.01)
    found = interval(baseline, variant, paired=True)
    assert found is not None and found.method == "paired rounds" and found.rounds == MIN_ROUNDS - 1
    decision = decide(found)
    assert decision is not None and decision.verdict == "insufficient rounds"


def test_one_round_gets_a_within_block_bootstrap_labelled_not_a_verdict() -> None:
    baseline, variant = _run(np.random.default_rng(2), 1, 2.0, 0.01, 0.01)
    found = interval(baseline, variant, paired=True)
    assert found is not None and found.method == "within-block bootstrap"
    assert found.low <= found.ratio <= found.high and found.ratio == pytest.approx(2.0, rel=0.1)
    decision = decide(found)
    assert decision is not None and decision.verdict == "insufficient rounds"
    assert "not a verdict" in decision.reason


def test_a_difference_inside_the_a_a_floor_is_inconclusive() -> None:
    found = Interval(1.12, 1.06, 1.18, 10, "paired rounds")
    assert decide(found, 0.05).verdict == "regression"  # type: ignore[union-attr]
    wide_floor = Interval(1.04, 0.92, 1.10, 10, "paired rounds")
    within = decide(found, 0.05, floor=wide_floor)
    assert within is not None and within.verdict == "inconclusive" and "A/A" in within.reason
    narrow_floor = Interval(1.0, 0.98, 1.02, 10, "paired rounds")
    assert decide(found, 0.05, floor=narrow_floor).verdict == "regression"  # type: ignore[union-attr]


def test_rounds_of_two_runs_are_compared_unpaired() -> None:
    baseline, variant = _run(np.random.default_rng(3), 10, 1.3, 0.02, 0.02)
    found = interval(baseline, variant, paired=False)
    assert found is not None and found.method == "unpaired rounds"
    assert found.low > 1.2 and found.high < 1.4


def test_a_zero_or_missing_side_has_no_interval() -> None:
    assert interval({1: [0.0]}, {1: [1.0]}, paired=True) is None
    assert interval({}, {1: [1.0]}, paired=True) is None
    assert decide(None) is None
