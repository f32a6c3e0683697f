"""Ratios with seeded bootstrap intervals, verdicts at a threshold."""

import numpy as np

from upgradelab.results.stats.bootstrap import RatioInterval, ratio_interval, statistic, verdict


def _times(median_s: float, n: int, seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    return list(median_s * rng.lognormal(0, 0.05, n))


def test_a_variant_twice_as_slow_is_a_regression_with_an_interval_around_two() -> None:
    interval = ratio_interval(_times(0.010, 200, 1), _times(0.020, 200, 2), "median")
    assert interval is not None
    assert interval.low < interval.ratio < interval.high
    assert interval.low > 1.9 and interval.high < 2.1
    assert verdict(interval, 0.05) == "regression"


def test_a_faster_variant_is_an_improvement_and_equal_samples_are_no_significant_difference() -> None:
    faster = ratio_interval(_times(0.010, 200, 1), _times(0.007, 200, 3), "p95")
    assert verdict(faster, 0.05) == "improvement"
    same = ratio_interval(_times(0.010, 200, 1), _times(0.010, 200, 4), "median")
    assert verdict(same, 0.05) == "no significant difference"


def test_the_interval_is_reproducible_because_the_rng_is_seeded() -> None:
    base, other = _times(0.010, 300, 5), _times(0.012, 300, 6)
    assert ratio_interval(base, other, "median") == ratio_interval(base, other, "median")


def test_the_threshold_turns_a_small_significant_change_into_no_verdict() -> None:
    interval = RatioInterval(ratio=1.03, low=1.01, high=1.05)
    assert verdict(interval, 0.02) == "regression"
    assert verdict(interval, 0.05) == "no significant difference"


def test_statistics_match_linear_percentiles_and_empty_input_gives_none() -> None:
    assert statistic([1.0, 2.0, 3.0, 4.0], "median") == 2.5
    assert statistic([float(i) for i in range(1, 101)], "p95") == 95.05
    assert statistic([], "median") is None
    assert ratio_interval([], [1.0], "median") is None
