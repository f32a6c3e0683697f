"""How a replay round lays out its turns (measurement/engine.py round_turns): every statement gets its
passes on every variant once per round, in any layout; the interleaved layouts switch variants between
statements (or passes) and rotate who goes first."""

from collections import Counter
from itertools import groupby

import pytest

from upgradelab.execution.schedule import plan
from upgradelab.measurement.turns import Interleave, round_turns

LAYOUTS: list[Interleave] = ["block", "statement", "pass"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("variants", [1, 2, 3, 5])
def test_every_statement_gets_its_passes_on_every_variant_once_per_round(
    layout: Interleave, variants: int
) -> None:
    for order in plan("interleaved", 4, 3, 11, variants).order:
        turns = round_turns(order, 7, 3, layout)
        timed = Counter[tuple[int, int]]()
        for variant, statement, passes in turns:
            timed[variant, statement] += passes
        assert timed == {(v, s): 3 for v in range(variants) for s in range(7)}
        # each statement's passes in source order on each variant: the report reads them by round
        for variant in range(variants):
            mine = [s for v, s, _ in turns if v == variant]
            assert mine == sorted(mine)


def test_a_block_is_one_variant_at_a_time_in_the_rounds_order() -> None:
    order = [2, 0, 1]
    turns = round_turns(order, 4, 5, "block")
    assert [v for v, _ in groupby(t[0] for t in turns)] == order


@pytest.mark.parametrize("layout", ["statement", "pass"])
def test_interleaved_layouts_switch_between_statements_and_rotate_who_goes_first(layout: Interleave) -> None:
    order = [2, 0, 1]
    statements, passes = 6, 2
    turns = round_turns(order, statements, passes, layout)
    runs = [v for v, _ in groupby(t[0] for t in turns)]
    per_switch = statements * (passes if layout == "pass" else 1)
    assert len(runs) == per_switch * len(order)  # a switch after every turn
    firsts = Counter(runs[i] for i in range(0, len(runs), len(order)))
    assert set(firsts) == set(order) and max(firsts.values()) - min(firsts.values()) <= 1
    assert runs[: len(order)] == order  # the round's own order first
