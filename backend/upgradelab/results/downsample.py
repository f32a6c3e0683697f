"""Largest-Triangle-Three-Buckets downsampling of a series before it reaches a chart (the `lttb` package)."""

import lttb
import numpy as np

from upgradelab.results.schemas import Point

DEFAULT_MAX_POINTS = 2000


def downsample(points: list[Point], max_points: int = DEFAULT_MAX_POINTS) -> list[Point]:
    """At most max_points points keeping the series' visual shape (first and last kept); unchanged if shorter.

    Points must be in increasing iteration order (as iteration_series returns them).
    """
    if len(points) <= max_points or max_points < 3:
        return points
    data = np.array([[p.iteration, p.elapsed_s] for p in points], dtype=np.float64)
    kept = lttb.downsample(data, n_out=max_points)
    return [Point(iteration=int(x), elapsed_s=float(y)) for x, y in kept]
