"""How a replay round lays out its turns (measurement/engine.py round_turns): every statement gets its
passes on every variant once per round, in any layout; the interleaved layouts switch variants between
statements (or passes) and rotate who goes first."""

from collections import Counter
from itertools import groupby

import pytest

from upgradelab.execution.schedule import plan
from upgradelab.measurement import turns as turns_module
from upgradelab.measurement.turns import Interleave, balanced_orders, round_turns

LAYOUTS: list[Interleave] = ["block", "statement", "pass"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("variants", [1, 2, 3, 5])
def test_every_statement_gets_its_passes_on_every_variant_once_per_round(
    layout: Interleave, variants: int
) -> None:
    for order in plan("interleaved", 4, 3, 11, variants).order:
        turns = round_turns(order, 7, 3, layout)
        assert _passes(turns) == {(v, s): 3 for v in range(variants) for s in range(7)}
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
    after = _predecessors(turns)  # balanced by default (turns.BALANCED): each after each other one
    assert max(after.values()) - min(after.values()) <= 2 and len(after) == 6, after


def _passes(turns: list[tuple[int, int, int]]) -> Counter[tuple[int, int]]:
    """(variant, statement): the passes a round's turns give it."""
    timed = Counter[tuple[int, int]]()
    for variant, statement, passes in turns:
        timed[variant, statement] += passes
    return timed


def _predecessors(turns: list[tuple[int, int, int]]) -> Counter[tuple[int, int]]:
    """(variant, the variant timed right before it) of every switch in a round's turns."""
    runs = [v for v, _ in groupby(t[0] for t in turns)]
    return Counter(zip(runs[1:], runs[:-1], strict=True))


@pytest.mark.parametrize("variants", [3, 4, 5, 6])
@pytest.mark.parametrize("layout", ["statement", "pass"])
def test_balanced_turns_put_every_variant_after_every_other_equally_often(
    layout: Interleave, variants: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The carryover (issue 51): a pass leaves its caches and deferred work to the next variant's.
    Rotated, a variant follows the same one all round long (replay_causes.py's A/A control read b
    13-23 % faster than a on the scans where a followed the planted variants more often); balanced,
    each follows every other one as often, within two in a round, and the rest holds: every pass
    once, a switch after every turn, each variant first as often, the round's own order first."""
    monkeypatch.setattr(turns_module, "BALANCED", True)
    for order in plan("interleaved", 3, 2, 5, variants).order:
        turns = round_turns(order, 34, 2, layout)
        assert _passes(turns) == {(v, s): 2 for v in range(variants) for s in range(34)}
        after = _predecessors(turns)
        assert set(after) == {(v, w) for v in order for w in order if v != w}
        assert max(after.values()) - min(after.values()) <= 2, after
        runs = [v for v, _ in groupby(t[0] for t in turns)]
        assert len(runs) == len(turns)  # a switch after every turn
        firsts = Counter(runs[i] for i in range(0, len(runs), variants))
        assert set(firsts) == set(order) and max(firsts.values()) - min(firsts.values()) <= 1
        assert runs[:variants] == order


def test_rotated_turns_keep_each_variants_predecessor_within_a_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """What BALANCED fixes, as the rotation lays a round out: each variant after its predecessor in
    the round's order on 3 switches of 4 (the turn's boundary the 4th), never after its successor."""
    monkeypatch.setattr(turns_module, "BALANCED", False)  # the rotation (the default before issue 51)
    after = _predecessors(round_turns([3, 1, 0, 2], 34, 2, "pass"))
    assert len(after) == 8  # of 12
    for variant in range(4):
        mine = [count for (one, _), count in after.items() if one == variant]
        assert max(mine) >= 0.7 * sum(mine)


def test_balanced_orders_bounds() -> None:
    assert balanced_orders(1, 3) == ((0,), (0,), (0,))
    assert balanced_orders(2, 3) == ((0, 1), (0, 1), (0, 1))  # a b a b: never two turns in a row
    with pytest.raises(ValueError, match="count 7"):
        balanced_orders(7, 3)
