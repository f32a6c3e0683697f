"""Contrasts from rounds (results/views/contrasts.py): within a variant, paired within the round; across
variants, the ratio of two variants' contrasts; sides "first" / "later" pick a round's iterations."""

import numpy as np
import pytest

from upgradelab.results.store.rounds import Point, RunRounds, VariantRounds
from upgradelab.results.views.contrasts import contrast_rounds, of_rounds, side_rounds
from upgradelab.workloads.base import SECONDS, Contrast, Side
from upgradelab.workloads.lock_waits import MONITOR_COST

ROUNDS, BLOCK = 8, 3


def _variant(index: int, name: str, cost: float, rng: np.random.Generator) -> VariantRounds:
    """monitor=off ~1 s and monitor=on ~cost s, both scaled by one load factor per round (what the
    pairing within the round removes), 2 % noise per iteration."""
    variant = VariantRounds(1, index, name, False)
    number = 0
    for round_ in range(1, ROUNDS + 1):
        load = float(rng.uniform(0.5, 2.0))
        for group, seconds in (("monitor=off", 1.0), ("monitor=on", cost)):
            for _ in range(BLOCK):
                number += 1
                value = seconds * load * float(rng.normal(1, 0.02))
                point = Point(number, round_, value, {})
                variant.points.append(point)
                variant.groups[group].append(point)
    return variant


def _run(*variants: VariantRounds) -> RunRounds:
    return RunRounds(None, list(variants), ["monitor=off", "monitor=on"], (SECONDS,))  # type: ignore[arg-type]


MONITOR = Contrast(MONITOR_COST, Side("monitor=on"), Side("monitor=off"))


def test_monitor_cost_per_version_and_whether_the_upgrade_changed_it() -> None:
    rng = np.random.default_rng(4)
    old, new = _variant(0, "8.0.32", 16.3, rng), _variant(1, "8.0.40", 1.02, rng)
    found = of_rounds(_run(old, new), [MONITOR])
    costs = {row.variant: row.verdict for row in found.within}
    assert costs["8.0.32"] is not None and costs["8.0.40"] is not None
    assert costs["8.0.32"].ratio == pytest.approx(16.3, rel=0.03)
    assert costs["8.0.32"].verdict == "regression" and costs["8.0.32"].rounds == ROUNDS
    assert costs["8.0.32"].low < 16.3 < costs["8.0.32"].high
    assert costs["8.0.40"].ratio == pytest.approx(1.02, rel=0.03)
    assert costs["8.0.40"].verdict != "regression"  # 2 % is below the 5 % threshold
    [change] = found.across
    assert (change.baseline, change.variant, change.name) == ("8.0.32", "8.0.40", MONITOR_COST)
    assert change.verdict is not None and change.verdict.verdict == "improvement"
    assert change.verdict.low < 1.02 / 16.3 < change.verdict.high


def test_the_round_load_cancels_within_the_round() -> None:
    # a 4x load swing between rounds, yet the monitor's 1.10x is decided: both groups of a round share it
    rng = np.random.default_rng(9)
    [row] = of_rounds(_run(_variant(0, "v", 1.10, rng)), [MONITOR]).within
    assert row.verdict is not None and row.verdict.verdict == "regression"
    assert row.verdict.ratio == pytest.approx(1.10, rel=0.02)


def test_first_is_the_rounds_first_iteration_and_later_the_rest() -> None:
    variant = VariantRounds(1, 0, "v", False)
    values = {1: [9.0, 1.0, 1.2], 2: [3.0, 0.9, 1.1, 1.0]}
    number = 0
    for round_, seconds in values.items():
        for value in seconds:
            number += 1
            point = Point(number, round_, value, {})
            variant.points.append(point)
            variant.groups["table=test_long"].append(point)
    first_later = Contrast(
        "test_long first / later", Side("table=test_long", "first"), Side("table=test_long", "later")
    )
    assert side_rounds(variant, first_later.numerator, first_later) == {1: [9.0], 2: [3.0]}
    assert side_rounds(variant, first_later.denominator, first_later) == {1: [1.0, 1.2], 2: [0.9, 1.1, 1.0]}
    assert contrast_rounds(variant, first_later) == pytest.approx({1: 9.0 / 1.1, 2: 3.0 / 1.0})
    [row] = of_rounds(RunRounds(None, [variant], ["table=test_long"], (SECONDS,)), [first_later]).within  # type: ignore[arg-type]
    assert row.verdict is not None and row.verdict.verdict == "insufficient rounds"  # 2 rounds
    assert (row.numerator, row.denominator) == ("test_long first", "test_long later")


def test_a_side_without_iterations_has_no_verdict() -> None:
    rng = np.random.default_rng(1)
    missing = Contrast("threads=8 / threads=1", Side("threads=8"), Side("threads=1"))
    [row] = of_rounds(_run(_variant(0, "v", 2.0, rng)), [missing]).within
    assert row.verdict is None
