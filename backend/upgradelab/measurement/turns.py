"""A replay round's layout: which variant times which statement, in what order (engine.py step 3),
and one turn on a server: its instance thawed, the turn's settings in force on its connection
(`server_turn` on a `TurnServer`).

Why pass by pass by default: see engine.py's module docstring (the two times of a ratio one pass
apart instead of a block apart; measured in bench/replay_resolution.py).
"""

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from itertools import product
from typing import Literal, Protocol

from upgradelab.execution.instances import Instance

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
