"""Summary statistics of per-iteration times (numpy: a 10,000-iteration series in microseconds)."""

from collections.abc import Sequence

import numpy as np


def percentile(values: Sequence[float], fraction: float) -> float | None:
    """Linear-interpolated percentile (fraction in [0, 1], numpy's default 'linear' method) of values;
    None when empty."""
    if len(values) == 0:
        return None
    return float(np.percentile(np.asarray(values, dtype=np.float64), fraction * 100))


def median(values: Sequence[float]) -> float | None:
    """Median (the mean of the two middle values for an even count), or None when empty."""
    if len(values) == 0:
        return None
    return float(np.median(np.asarray(values, dtype=np.float64)))
