"""An experiment's schedule fields from what the user gave: schedule kind, rounds, block, iterations.

interleaved: a run is `rounds` rounds; in each, every variant runs one block of `block` iterations
per group, so each variant does rounds x block iterations per group (stored as `iterations`).
sequential: one round, each variant all its `iterations` per group, one variant after another.
"""

import math
import random
from dataclasses import dataclass

from upgradelab.execution.schedule import EXTENSION_STEP

DEFAULT_ROUNDS = 10
MIN_ROUNDS_FOR_VERDICT = 5
MAX_SEED = 2**31 - 1


class ScheduleError(ValueError):
    """Fields that do not fit together; `field` names the one to change."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class ScheduleFields:
    """What is stored on the experiment: kind, rounds, block, iterations (per variant per group), seed."""

    kind: str
    rounds: int
    block: int
    iterations: int
    seed: int


def resolve_schedule(
    kind: str,
    iterations: int | None,
    rounds: int | None,
    block: int | None,
    seed: int | None,
    default_iterations: int,
) -> ScheduleFields:
    """Fill the missing fields; ScheduleError names the field that contradicts the others.

    interleaved, neither rounds nor block: rounds x block = iterations exactly, rounds the largest
    divisor of iterations from 5 to 10 (100 -> 10 x 10, 12 -> 6 x 2), else its smallest divisor
    from 5 on (13 -> 13 x 1; fewer than 5 iterations: that many rounds of 1); only rounds: block =
    iterations / rounds rounded up (at least 1); only block: rounds = iterations / block rounded up;
    rounds and block: iterations, when given, must equal rounds x block. sequential: rounds is 1,
    block = iterations. A None seed is drawn at random (0 .. 2^31-1) and stored so the schedule can
    be made again.
    """
    seed = random.SystemRandom().randrange(MAX_SEED) if seed is None else seed
    if kind == "sequential":
        if rounds not in (None, 1):
            raise ScheduleError("rounds", f"a sequential schedule has one round, not {rounds}")
        count = iterations or block or default_iterations
        if block is not None and block != count:
            raise ScheduleError(
                "block", f"block ({block}) differs from iterations ({count}) in a sequential run"
            )
        return ScheduleFields("sequential", 1, count, count, seed)
    if rounds is not None and block is not None:
        if iterations is not None and iterations != rounds * block:
            raise ScheduleError(
                "iterations", f"iterations ({iterations}) must equal rounds x block ({rounds} x {block})"
            )
        return ScheduleFields("interleaved", rounds, block, rounds * block, seed)
    wanted = iterations or default_iterations
    if rounds is None and block is not None:
        rounds = max(1, math.ceil(wanted / block)) if iterations else DEFAULT_ROUNDS
    elif rounds is None:
        rounds = _rounds_for(wanted)
    if block is None:
        block = max(1, math.ceil(wanted / rounds))
    return ScheduleFields("interleaved", rounds, block, rounds * block, seed)


def check_extension(fields: ScheduleFields, max_rounds: int | None, max_minutes: float | None) -> None:
    """ScheduleError unless the auto-extension budget fits the schedule: max_rounds only for an
    interleaved schedule and at least its rounds; max_minutes only with max_rounds."""
    if max_rounds is not None:
        if fields.kind != "interleaved":
            raise ScheduleError("max_rounds", "auto-extension adds rounds: it needs an interleaved schedule")
        if max_rounds < fields.rounds:
            raise ScheduleError(
                "max_rounds", f"max_rounds ({max_rounds}) is below the planned rounds ({fields.rounds})"
            )
    elif max_minutes is not None:
        raise ScheduleError("max_minutes", "max_minutes is the budget of an auto-extension: set max_rounds")


def looks(rounds: int, max_rounds: int | None) -> int:
    """How many times an auto-extended run may be judged: after its planned rounds, then after every
    EXTENSION_STEP added (the last step cut at max_rounds); 1 without an extension. Every look is a
    chance of a false verdict, so the verdicts of such a run share the 5 % among them (verdicts.py)."""
    if max_rounds is None or max_rounds <= rounds:
        return 1
    return 1 + math.ceil((max_rounds - rounds) / EXTENSION_STEP)


def _rounds_for(iterations: int) -> int:
    """Rounds that divide `iterations` exactly: the largest divisor in 5..10, else the smallest >= 5."""
    in_range = [r for r in range(MIN_ROUNDS_FOR_VERDICT, DEFAULT_ROUNDS + 1) if iterations % r == 0]
    if in_range:
        return in_range[-1]
    if iterations < MIN_ROUNDS_FOR_VERDICT:
        return iterations
    return next(r for r in range(MIN_ROUNDS_FOR_VERDICT, iterations + 1) if iterations % r == 0)
