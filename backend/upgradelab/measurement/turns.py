"""A replay round's layout: which variant times which statement, in what order (engine.py step 3).

Why pass by pass by default: see engine.py's module docstring (the two times of a ratio one pass
apart instead of a block apart; measured in bench/replay_resolution.py).
"""

from collections.abc import Sequence
from itertools import product
from typing import Literal

Interleave = Literal["pass", "statement", "block"]
Turn = tuple[int, int, int]


def round_turns(
    order: list[int], statements: int | Sequence[int], passes: int, interleave: Interleave
) -> list[Turn]:
    """One round's turns in the order they run: (variant index, statement index, passes to time).

    order: the round's variant order (the schedule's); statements: how many (every statement) or
    the indexes to time, in source order (an extension round: the still-undecided ones);
    "block": each variant in turn times every statement `passes` times; "statement": each statement
    in turn is timed `passes` times on every variant; "pass": each pass of each statement on every
    variant in turn. In the last two the variants' order is the round's rotated by the turn, so each
    variant is as often first after a switch (a thawed server's first statement) as the others."""
    indexes = range(statements) if isinstance(statements, int) else sorted(statements)
    if interleave == "block":
        return [(v, s, passes) for v in order for s in indexes]
    if interleave == "statement":
        return [(v, s, passes) for turn, s in enumerate(indexes) for v in _rotated(order, turn)]
    turns = product(indexes, range(passes))
    return [(v, s, 1) for turn, (s, _) in enumerate(turns) for v in _rotated(order, turn)]


def _rotated(order: list[int], by: int) -> list[int]:
    shift = by % len(order) if order else 0
    return order[shift:] + order[:shift]
