"""A fix search's candidate ratios are the measurement library's `time_ratio` at the looks'
confidence (issue 48, item 3: fixsearch/search.py kept a copy of it, `ratio`)."""

import random

from upgradelab.fixsearch.search import judge
from upgradelab.measurement import THRESHOLD, time_ratio
from upgradelab.results.stats import verdicts


def test_a_candidates_ratios_are_the_librarys_time_ratio_at_the_looks_confidence() -> None:
    noise = random.Random(5)
    rounds = {
        arm: {r: [seconds * (1 + noise.gauss(0, 0.05))] for r in range(1, 11)}
        for arm, seconds in (("base", 1.0), ("var", 2.0), ("cand", 1.04))
    }
    looks = 5
    confidence = verdicts.confidence_for(looks)
    trial = judge("c", rounds["base"], rounds["var"], rounds["cand"], True, 10, looks=looks)
    for got, (low, high) in (
        (trial.ratio_to_baseline, ("base", "cand")),
        (trial.ratio_to_variant, ("var", "cand")),
        (trial.variant_to_baseline, ("base", "var")),
    ):
        expected = verdicts.read(
            verdicts.interval(rounds[low], rounds[high], paired=True, confidence=confidence), THRESHOLD
        )
        assert got == expected == time_ratio(rounds[low], rounds[high], confidence=confidence)
    # the confidence is used: at 99 % the interval is wider than the replay's 95 %
    wide, narrow = (
        time_ratio(rounds["base"], rounds["cand"], confidence=confidence),
        time_ratio(rounds["base"], rounds["cand"]),
    )
    assert wide is not None and narrow is not None
    assert wide.low < narrow.low and wide.high > narrow.high
