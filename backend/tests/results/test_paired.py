"""Interval estimators on paired per-round log ratios (results/stats/paired.py), on synthetic rounds."""

import numpy as np
import pytest
from scipy import stats

from upgradelab.results.stats.paired import ESTIMATORS, Estimator, shift


def _load_window(rng: np.random.Generator, rounds: int, true_shift: float) -> np.ndarray:
    """Quiet rounds (sd 0.02) and, in a fifth of them, a load burst on one side of the round only."""
    logs = true_shift + rng.normal(0, 0.02, rounds)
    hit = rng.choice(rounds, size=rounds // 5, replace=False)
    logs[hit] += rng.choice([-1, 1], size=len(hit)) * rng.uniform(0.3, 0.9, size=len(hit))
    return logs


def test_the_hodges_lehmann_interval_is_the_set_of_shifts_wilcoxon_does_not_reject() -> None:
    logs = np.random.default_rng(3).normal(0.1, 0.1, 12)
    found = shift(logs, "hodges-lehmann")
    assert found is not None
    _, low, high = found
    eps = 1e-9
    assert stats.wilcoxon(logs - (low + eps)).pvalue >= 0.05  # just inside: not rejected
    assert stats.wilcoxon(logs - (low - eps)).pvalue < 0.05  # just outside: rejected
    assert stats.wilcoxon(logs - (high - eps)).pvalue >= 0.05
    assert stats.wilcoxon(logs - (high + eps)).pvalue < 0.05


def test_hodges_lehmann_has_no_95_percent_interval_below_6_rounds() -> None:
    logs = np.array([0.1, 0.2, 0.15, 0.12, 0.3])
    assert shift(logs, "hodges-lehmann") is None
    found = shift(np.append(logs, 0.11), "hodges-lehmann")
    assert found is not None and found[1:] == (0.1, 0.3)  # 6 rounds: the extremes, 96.9 %


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_a_known_shift_is_inside_the_interval_and_zero_is_not(estimator: Estimator) -> None:
    hits = 0
    for seed in range(200):
        found = shift(np.random.default_rng(seed).normal(0.15, 0.05, 10), estimator)
        assert found is not None
        _, low, high = found
        hits += low <= 0.15 <= high and low > 0
    assert hits >= 180


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_a_null_is_excluded_in_about_5_percent_of_normal_runs(estimator: Estimator) -> None:
    misses = 0
    for seed in range(1000):
        found = shift(np.random.default_rng(seed).normal(0, 0.1, 10), estimator)
        assert found is not None
        misses += found[1] > 0 or found[2] < 0
    assert misses / 1000 <= 0.075  # the trimmed interval is slightly liberal at 10 rounds (~6 %)


def test_load_bursts_in_a_fifth_of_the_rounds_widen_t_but_not_the_robust_intervals() -> None:
    width: dict[str, list[float]] = {e: [] for e in ESTIMATORS}
    for seed in range(200):
        logs = _load_window(np.random.default_rng(seed), 20, 0.0)
        for estimator in ESTIMATORS:
            found = shift(logs, estimator)
            assert found is not None
            width[estimator].append(found[2] - found[1])
    median = {e: float(np.median(w)) for e, w in width.items()}
    assert median["t"] > 0.2  # ~ +/-10 %: a 5 % threshold is never shown
    # measured: trimmed ~0.03, Hodges-Lehmann ~0.17 (a burst enters many Walsh averages), t > 0.2
    assert median["trimmed"] < 0.06 < median["hodges-lehmann"] < median["t"]


def test_identical_rounds_give_a_zero_width_interval_and_one_round_is_refused() -> None:
    for estimator in ESTIMATORS:
        assert shift(np.full(8, 0.2), estimator) == (0.2, 0.2, 0.2)
    with pytest.raises(ValueError, match="at least 2 rounds"):
        shift(np.array([0.1]), "t")
