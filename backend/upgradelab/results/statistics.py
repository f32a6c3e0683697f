"""Summary statistics of per-iteration times."""

import statistics
from collections.abc import Sequence


def percentile(values: Sequence[float], fraction: float) -> float | None:
    """Linear-interpolated percentile (fraction in [0, 1]) of values; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(values: Sequence[float]) -> float | None:
    """Median, or None when empty."""
    return statistics.median(values) if values else None
