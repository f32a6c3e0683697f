"""Summary statistics of iteration times."""

import pytest

from upgradelab.results.schemas import Point, Series
from upgradelab.results.service import summarize
from upgradelab.results.statistics import median, percentile


def test_percentile_interpolates_between_ranks() -> None:
    values = [float(v) for v in range(1, 101)]  # 1..100
    assert percentile(values, 0.95) == pytest.approx(95.05)
    assert percentile(values, 0.5) == pytest.approx(50.5)
    assert percentile([3.0], 0.95) == 3.0
    assert percentile([], 0.95) is None
    assert median([]) is None


def test_summary_ratio_is_median_over_first_variant_median() -> None:
    def series(index: int, times: list[float]) -> Series:
        return Series(
            variant=f"v{index}",
            variant_index=index,
            points=[Point(iteration=i + 1, elapsed_s=t) for i, t in enumerate(times)],
        )

    rows = summarize([series(0, [0.02, 0.04, 0.03]), series(1, [0.01, 0.015, 0.02]), series(2, [])])
    assert [row.iterations for row in rows] == [3, 3, 0]
    assert rows[0].ratio == pytest.approx(1.0)
    assert rows[1].ratio == pytest.approx(0.015 / 0.03)
    assert rows[1].total_s == pytest.approx(0.045)
    assert rows[2].median_s is None and rows[2].ratio is None
