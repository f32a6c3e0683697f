"""Ratio of a statistic between two samples with a seeded bootstrap 95% confidence interval, and a verdict.

Source: percentile bootstrap (Efron & Tibshirani, ch. 13): resample each variant's per-iteration
times with replacement, independently, RESAMPLES times; the interval is the 2.5th and 97.5th
percentiles of stat(variant*) / stat(baseline*). The RNG is numpy's PCG64 seeded with SEED, so the
same data always gives the same interval.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

RESAMPLES = 1000
SEED = 20261122
CONFIDENCE = 0.95
_CHUNK = 100  # resamples per block: bounds memory at _CHUNK x n floats

Statistic = Literal["median", "p95"]
STATISTICS: tuple[Statistic, ...] = ("median", "p95")
Verdict = Literal["regression", "improvement", "no significant difference"]

_STATS: dict[Statistic, Callable[[NDArray[np.float64]], NDArray[np.float64]]] = {
    "median": lambda a: np.median(a, axis=-1),
    "p95": lambda a: np.percentile(a, 95, axis=-1),  # linear interpolation, like statistics.percentile
}


@dataclass(frozen=True)
class RatioInterval:
    """variant / baseline of one statistic: point estimate and bootstrap 95% interval (unitless)."""

    ratio: float
    low: float
    high: float


def statistic(values: Sequence[float], name: Statistic) -> float | None:
    """The median or p95 (seconds in, seconds out); None when empty."""
    if not values:
        return None
    return float(_STATS[name](np.asarray(values, dtype=np.float64)))


def _resampled(values: NDArray[np.float64], name: Statistic, rng: np.random.Generator) -> NDArray[np.float64]:
    out = np.empty(RESAMPLES)
    for start in range(0, RESAMPLES, _CHUNK):
        size = min(_CHUNK, RESAMPLES - start)
        picks = rng.integers(0, len(values), size=(size, len(values)))
        out[start : start + size] = _STATS[name](values[picks])
    return out


def distribution(values: Sequence[float], name: Statistic, seed: int) -> NDArray[np.float64]:
    """RESAMPLES bootstrap replicates of the statistic (seconds), from numpy's PCG64 seeded with `seed`."""
    return _resampled(np.asarray(values, dtype=np.float64), name, np.random.default_rng(seed))


def ratio_interval(
    baseline: Sequence[float],
    variant: Sequence[float],
    name: Statistic,
    baseline_replicates: NDArray[np.float64] | None = None,
) -> RatioInterval | None:
    """stat(variant) / stat(baseline) with its bootstrap interval; None if either is empty or zero.

    baseline_replicates: distribution(baseline, name, SEED), passed in when many variants are compared
    to one baseline so it is resampled once (the result is the same either way).
    """
    if not baseline or not variant:
        return None
    point_base = float(_STATS[name](np.asarray(baseline, dtype=np.float64)))
    if point_base <= 0:
        return None
    if baseline_replicates is None:
        baseline_replicates = distribution(baseline, name, SEED)
    ratios = distribution(variant, name, SEED + 1) / np.maximum(baseline_replicates, 1e-12)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(ratios, [tail, 100 - tail])
    point = float(_STATS[name](np.asarray(variant, dtype=np.float64)))
    return RatioInterval(point / point_base, float(low), float(high))


def verdict(interval: RatioInterval | None, threshold: float) -> Verdict | None:
    """Times: higher is worse. regression when the whole interval is above 1 and the ratio is at least
    1 + threshold; improvement when the whole interval is below 1 and the ratio at most 1 - threshold;
    otherwise no significant difference. threshold is a fraction (0.05 = 5 %)."""
    if interval is None:
        return None
    if interval.low > 1 and interval.ratio >= 1 + threshold:
        return "regression"
    if interval.high < 1 and interval.ratio <= 1 - threshold:
        return "improvement"
    return "no significant difference"
