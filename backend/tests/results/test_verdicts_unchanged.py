"""The verdicts of one read model are the numbers the five hand-mapped shapes gave: golden_verdicts.json
holds rounds and, for each, the comparison rows (ratio, interval, rounds, method, smallest detectable
change, verdict, reason, A/A floor) at three thresholds and replay time ratios, as computed by the code
before results/ was split (commit 9b940ff: results/verdict_table.py, results/comparison.py and
replay/compare.py `time_ratio`). The same rounds through today's code must give the same values,
bit for bit. No database: the rounds are built in memory."""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.results.synthetic import resolved
from upgradelab.measurement import time_ratio
from upgradelab.results.store.rounds import Point, RunRounds, VariantRounds
from upgradelab.results.store.verdict_table import table
from upgradelab.results.views.comparison import _row
from upgradelab.runs.models import Experiment, Run
from upgradelab.workloads.base import SECONDS

GOLDEN = json.loads((Path(__file__).parent / "golden_verdicts.json").read_text())
_FLOOR_BEFORE = ("ratio", "low", "high", "rounds")  # FloorRead's fields, all a floor had before


def _rounds(case: dict[str, Any]) -> RunRounds:
    experiment = Experiment(
        name="golden",
        workload="insert-truncate",
        rounds=case["rounds"],
        max_rounds=case["max_rounds"],
        variants=[resolved(v["name"]) for v in case["variants"]],
    )
    variants = []
    for index, spec in enumerate(case["variants"]):
        variant = VariantRounds(1, index, spec["name"], spec["is_aa_control"])
        for number, round_, group, seconds in spec["points"]:
            point = Point(number, round_, seconds, {})
            variant.points.append(point)
            variant.groups[group].append(point)
        variants.append(variant)
    return RunRounds(Run(id=1, experiment=experiment), variants, case["groups"], (SECONDS,))


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=[case["name"] for case in GOLDEN["cases"]])
def test_comparison_rows_are_the_numbers_of_before(case: dict[str, Any]) -> None:
    loaded = _rounds(case)
    rows = table([loaded], loaded.variants[0])
    labels = {f"1:{v.variant_index}": v.name for v in loaded.variants}
    for threshold, before in case["rows"].items():
        now = [_row(r, "1:0", labels, {1: "golden"}, float(threshold)).model_dump(mode="json") for r in rows]
        assert len(now) == len(before)
        for new, old in zip(now, before, strict=True):
            new_floor, old_floor = new.pop("aa_floor"), old.pop("aa_floor")
            assert new == old, (threshold, new["key"], new["group"])
            if old_floor is None:
                assert new_floor is None
            else:  # the floor now carries its own verdict too; its interval is the same
                assert {k: new_floor[k] for k in _FLOOR_BEFORE} == old_floor


def test_the_golden_rounds_cover_every_kind_of_verdict() -> None:
    said = {
        row["ratio"]["verdict"]
        for case in GOLDEN["cases"]
        for row in case["rows"]["0.05"]
        if row["ratio"] is not None
    }
    assert said >= {
        "regression",
        "improvement",
        "no significant difference",
        "inconclusive",
        "insufficient rounds",
    }


@pytest.mark.parametrize("pair", GOLDEN["replay"])
def test_replay_time_ratios_are_the_numbers_of_before(pair: dict[str, Any]) -> None:
    baseline = {int(r): values for r, values in pair["baseline"].items()}
    variant = {int(r): values for r, values in pair["variant"].items()}
    now, before = time_ratio(baseline, variant), pair["ratio"]
    if before["ratio"] is None:  # no round: TimeRatio was all None but `rounds`, now no ratio at all
        assert now is None
    else:
        assert now is not None and now.model_dump(mode="json") == before
