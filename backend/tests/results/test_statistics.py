"""Summary statistics of iteration times."""

import pytest

from upgradelab.results.stats.statistics import median, percentile


def test_percentile_interpolates_between_ranks() -> None:
    values = [float(v) for v in range(1, 101)]  # 1..100
    assert percentile(values, 0.95) == pytest.approx(95.05)
    assert percentile(values, 0.5) == pytest.approx(50.5)
    assert percentile([3.0], 0.95) == 3.0
    assert percentile([], 0.95) is None
    assert median([]) is None
