"""How a replay extends its rounds (engine.py's module docstring, step 4): the Extension a replay is
given and its steps, each a longer schedule and the still-undecided statements its rounds time."""

import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from upgradelab.execution.schedule import Budget, Schedule, extensions
from upgradelab.measurement.opening import VariantReplay


def _kept_nowhere(_: Schedule) -> None:
    """An Extension's `extended` when nothing stores the schedule (the bench, tests)."""


@dataclass(frozen=True)
class Extension:
    """How a replay extends its rounds (engine.py, step 4): at most `max_rounds` rounds in all;
    undecided(replays): the indexes of the statements whose fingerprint is still undecided on what was
    timed so far (replay/extension.py `still_undecided`); extended(schedule): called with the longer
    schedule before its added rounds run (the runner stores it)."""

    max_rounds: int
    undecided: Callable[[list[VariantReplay]], Collection[int]]
    extended: Callable[[Schedule], None] = _kept_nowhere


def extension_steps(
    schedule: Schedule, extension: Extension, replays: Callable[[], list[VariantReplay]]
) -> Iterator[tuple[Schedule, list[int]]]:
    """Each extension step: the longer schedule (execution/schedule.py `extensions`, EXTENSION_STEP
    rounds more, cut at max_rounds) and the statements its added rounds time: those still undecided
    after the rounds so far, and never one decided before (a decided statement is not timed again, so
    what decided it stands). Asks `extension.undecided` once per step, after the previous step ran."""
    remaining: set[int] | None = None

    def undecided() -> bool:
        nonlocal remaining
        found = set(extension.undecided(replays()))
        remaining = found if remaining is None else remaining & found
        return bool(remaining)

    budget = Budget(extension.max_rounds, None, time.monotonic())
    for longer in extensions(schedule, budget, undecided):
        yield longer, sorted(remaining or ())
