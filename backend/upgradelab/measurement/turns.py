"""A replay round's layout: which variant times which statement, in what order (engine.py step 3),
and one turn on a server: its instance thawed, the turn's settings in force on its connection
(`server_turn` on a `TurnServer`).

Why pass by pass by default: see engine.py's module docstring (the two times of a ratio one pass
apart instead of a block apart; measured in bench/replay_resolution.py).
"""

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import cache, partial
from itertools import pairwise, permutations, product
from typing import Literal, Protocol

from upgradelab.execution.instances import Instance

Interleave = Literal["pass", "statement", "block"]
Turn = tuple[int, int, int]
# Which variant precedes which in the interleaved layouts ("carryover": the variant timed right
# before leaves its caches and its deferred work to the next one). False: the round's order rotated
# at each turn, so within a round each variant always follows the same one (its predecessor in the
# round's order: replay_causes.py's seed gave "a after c or d" 544 turns, "b after c or d" 338);
# True: each turn's order chosen so that every variant follows every other one about equally often
# (`balanced_orders`): the default since issue 51's A/A runs (bench/README.md, "The replay's speed
# defaults": 85 % of the A/A control "same" against 67 % and 73 % rotated, in the same sittings, no
# false finding on either); bench/replay_aa_reads.py compares the two on the A/A control.
BALANCED = True


def round_turns(
    order: list[int], statements: int | Sequence[int], passes: int, interleave: Interleave
) -> list[Turn]:
    """One round's turns in the order they run: (variant index, statement index, passes to time).

    order: the round's variant order (the schedule's); statements: how many (every statement) or
    the indexes to time, in source order (an extension round: the still-undecided ones);
    "block": each variant in turn times every statement `passes` times; "statement": each statement
    in turn is timed `passes` times on every variant; "pass": each pass of each statement on every
    variant in turn. In the last two each turn's order is balanced (BALANCED: every variant after every
    other one as often; else the round's rotated by the turn), and each variant is as often first
    after a switch (a thawed server's first statement) as the others."""
    indexes = range(statements) if isinstance(statements, int) else sorted(statements)
    if interleave == "block":
        return [(v, s, passes) for v in order for s in indexes]
    if interleave == "statement":
        return [
            (v, s, passes) for turn, s in enumerate(indexes) for v in _turn_order(order, turn, len(indexes))
        ]
    turns = list(product(indexes, range(passes)))
    return [(v, s, 1) for turn, (s, _) in enumerate(turns) for v in _turn_order(order, turn, len(turns))]


def _turn_order(order: list[int], turn: int, turns: int) -> list[int]:
    """The variants' order of turn number `turn` (0-based) of a round of `turns` turns in `order`."""
    if not BALANCED or not 3 <= len(order) <= MAX_BALANCED:  # two: a rotation is balanced already
        return _rotated(order, turn)
    return [order[position] for position in balanced_orders(len(order), turns)[turn]]


def _rotated(order: list[int], by: int) -> list[int]:
    shift = by % len(order) if order else 0
    return order[shift:] + order[:shift]


# balanced_orders tries every order of the variants at each turn: up to this many variants (720)
MAX_BALANCED = 6


@cache
def balanced_orders(count: int, turns: int) -> tuple[tuple[int, ...], ...]:
    """`turns` orders of positions 0..count-1 (count 1..MAX_BALANCED), one a turn, in which each
    position follows every other one about equally often (first-order carryover balanced, as a
    Williams design balances it within its rows: E. J. Williams 1949, Aust. J. Sci. Res. A2 149-168;
    here the boundary between two turns counts too, which a Williams design's rows do not balance).
    Chosen turn by turn: an order not starting with the last turn's last position (a variant never
    takes two turns in a row, count >= 2), then one whose first position was first least often (each
    variant as often first after a switch: a thawed server's first statement) and whose last was
    first most often (the last cannot be first next: one rarely first is kept free for it), then the
    one whose transitions (the boundary from the turn before included) were used least so far, then
    the first in lexicographic order (turn 0 is 0, 1, ..., count-1: the round's own order).
    Deterministic; 3 to 6 positions over 7 to 200 turns: every transition's count within two of the
    others', each position first within one (replay_causes.py's 4 variants and seed, 10 rounds: "a"
    after each other variant 225-228 times, where the rotation gave 136-306). ValueError for a count
    out of range."""
    if not 1 <= count <= MAX_BALANCED:
        raise ValueError(f"balanced_orders: count {count} not in 1..{MAX_BALANCED}")
    candidates = list(permutations(range(count)))
    used: Counter[tuple[int, int]] = Counter()  # (before, after): transitions so far
    firsts: Counter[int] = Counter()
    out: list[tuple[int, ...]] = []
    last: int | None = None
    for _ in range(turns):
        # min keeps the first of equals: lexicographic
        chosen = min(candidates, key=partial(_cost, last, used, firsts))
        used.update(_transitions(last, chosen))
        firsts[chosen[0]] += 1
        last = chosen[-1]
        out.append(chosen)
    return tuple(out)


def _cost(
    last: int | None, used: Counter[tuple[int, int]], firsts: Counter[int], one: tuple[int, ...]
) -> tuple[bool, int, int, int]:
    """balanced_orders' key for the order `one` after a turn that ended with `last` (see there)."""
    switches = sum(used[pair] for pair in _transitions(last, one))
    return one[0] == last, firsts[one[0]], -firsts[one[-1]], switches


def _transitions(last: int | None, one: tuple[int, ...]) -> list[tuple[int, int]]:
    """(before, after) of each switch in a turn ordered `one` after a turn that ended with `last`."""
    boundary = [(last, one[0])] if last is not None and last != one[0] else []
    return boundary + list(pairwise(one))


class TurnServer(Protocol):
    """A server a job takes turns on, for `server_turn`: its instance (execution/instances.py
    `Instance`, frozen between turns) and `session(settings)`, a context in which `settings`
    ({variable: value}) are in force on the connection the turn measures on (SET SESSION on
    entering, the connection's own values set back on leaving; nothing for no settings; a
    pymysql.MySQLError when the server refuses one). Implemented by fixsearch/sides.py `Side` (a fix
    search's baseline, variant and second instance)."""

    instance: Instance

    def session(self, settings: dict[str, str]) -> AbstractContextManager[None]: ...


@contextmanager
def server_turn(server: TurnServer, settings: dict[str, str] | None = None) -> Iterator[None]:
    """One turn on `server`: its instance thawed (`Instance.thawed`: frozen again after, a shared
    one never), then `settings` in force on its connection while entered (`server.session`, set
    back before the freeze). A turn that raises leaves the instance thawed (the job's end stops
    it); what `session` raises (a refused setting) is raised."""
    with server.instance.thawed(), server.session(settings or {}):
        yield
