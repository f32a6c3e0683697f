"""Downsampling of a series before it reaches a chart: tsdownsample's MinMaxLTTB (LTTB on a min-max
preselection: the same shape as LTTB, spikes kept, linear time on long series)."""

import numpy as np
import numpy.typing as npt
from tsdownsample import MinMaxLTTBDownsampler

DEFAULT_MAX_POINTS = 2000
# LTTB keeps the most significant point of each pixel column (as frontend charts/downsample.ts)
POINTS_PER_PIXEL = 1
_DOWNSAMPLER = MinMaxLTTBDownsampler()  # type: ignore[no-untyped-call]


def kept_indices(iterations: npt.ArrayLike, seconds: npt.ArrayLike, max_points: int) -> range | list[int]:
    """Indices kept of a series given as columns (iteration numbers ascending, seconds; lists or arrays):
    at most max_points, the first and last always; every index when the series is not longer."""
    x = np.asarray(iterations, dtype=np.float64)
    if len(x) <= max_points or max_points < 3:
        return range(len(x))
    y = np.asarray(seconds, dtype=np.float64)
    return [int(index) for index in _DOWNSAMPLER.downsample(x, y, n_out=max_points)]
