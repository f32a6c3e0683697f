"""Largest-Triangle-Three-Buckets downsampling of a series before it reaches a chart (tsdownsample's LTTB)."""

import numpy as np
from tsdownsample import LTTBDownsampler

from upgradelab.results.schemas import Point

DEFAULT_MAX_POINTS = 2000
_LTTB = LTTBDownsampler()  # type: ignore[no-untyped-call]


def kept_indices(iterations: list[int], seconds: list[float], max_points: int) -> range | list[int]:
    """Indices LTTB keeps of a series given as columns (iteration numbers ascending, seconds)."""
    if len(iterations) <= max_points or max_points < 3:
        return range(len(iterations))
    x = np.asarray(iterations, dtype=np.float64)
    y = np.asarray(seconds, dtype=np.float64)
    return [int(index) for index in _LTTB.downsample(x, y, n_out=max_points)]


def downsample(points: list[Point], max_points: int = DEFAULT_MAX_POINTS) -> list[Point]:
    """At most max_points points keeping the series' visual shape (first and last kept); unchanged if shorter.

    Points must be in increasing iteration order (as results/service.iteration_columns returns them).
    """
    if len(points) <= max_points or max_points < 3:
        return points
    x = np.fromiter((p.iteration for p in points), dtype=np.float64, count=len(points))
    y = np.fromiter((p.elapsed_s for p in points), dtype=np.float64, count=len(points))
    kept = _LTTB.downsample(x, y, n_out=max_points)
    return [points[int(index)] for index in kept]
