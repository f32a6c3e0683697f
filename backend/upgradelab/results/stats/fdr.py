"""False discoveries across many comparisons: Benjamini-Hochberg on per-comparison p-values.

A replay judges every fingerprint on every variant: 30 fingerprints x 2 variants are 60 tests, and at
5 % each a few "regressions" are expected from noise alone. Benjamini-Hochberg
(scipy.stats.false_discovery_control, method "bh") adjusts the p-values so that among the verdicts
kept, the expected share of false ones is at most `q`.

The p-value of one comparison is that of the interval verdicts.py reads (the paired rounds' 20 %
trimmed mean of log ratios, results/stats/paired.py), from the same statistic: trimmed mean over
its winsorized standard error (scipy.stats.mstats.trimmed_stde), Student's t with the same degrees of
freedom as paired._trimmed, two-sided. Pure: no I/O.
"""

import math
from collections.abc import Sequence

import numpy as np

from upgradelab.results.stats import paired

Q = 0.05  # the false discovery rate the adjusted verdicts keep


def paired_p_value(logs: Sequence[float]) -> float | None:
    """Two-sided p-value that the paired per-round log ratios `logs` centre on 0 (no change), by the
    trimmed-mean statistic of paired.py ("trimmed"). None below 3 rounds. Identical values: 1.0
    when they are 0, else 0.0 (no spread: the shift is exact)."""
    from scipy import stats  # ~1 CPU-s: imported by the first p-value, not by every importer
    from scipy.stats import mstats

    values = np.asarray(logs, dtype=float)
    if len(values) < 3:
        return None
    if np.ptp(values) == 0:
        return 1.0 if values[0] == 0 else 0.0
    kept = len(values) - 2 * int(paired.TRIM * len(values))
    point = float(stats.trim_mean(values, paired.TRIM))
    stde = float(mstats.trimmed_stde(values, limits=(paired.TRIM, paired.TRIM)))
    if stde == 0 or not math.isfinite(stde):
        return 1.0 if point == 0 else 0.0
    return float(2 * stats.t.sf(abs(point) / stde, max(1, kept - 2)))


def adjusted(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values, in the input order (scipy.stats.false_discovery_control);
    [] for no input. A comparison is a discovery at rate q when its adjusted p-value is <= q."""
    if not len(p_values):
        return []
    from scipy import stats

    return [float(v) for v in stats.false_discovery_control(np.asarray(p_values, dtype=float), method="bh")]


def is_same(low: float, high: float, threshold: float) -> bool:
    """ "Same": the whole interval [low, high] of a ratio lies within [1 - threshold, 1 + threshold]
    (any change the measurement could hide is smaller than the threshold; verdicts.py's "no
    significant difference")."""
    return low >= 1 - threshold and high <= 1 + threshold
