"""A job's schedule: which variant runs which block, in which order, planned before the first block.

interleaved: `rounds` rounds; each round's variant order is shuffled with random.Random(seed) (the
same seed and variant count give the same schedule); within a round, for each of the template's
groups, every variant in that order runs one block of `block` iterations.
sequential: one round, the variants in experiment order, each all its iterations of every group
before the next variant starts (the behaviour before interleaving).
auto-extension (experiment.max_rounds): `extensions` adds EXTENSION_STEP rounds at a time (the last
step cut at max_rounds), their orders the next shuffles of the same seed stream (a run extended to R
rounds has the schedule `plan` gives for R).
"""

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

ScheduleKind = Literal["interleaved", "sequential"]

EXTENSION_STEP = 5  # rounds an auto-extension adds at a time (each addition is one more look)


class RunSchedule(BaseModel):
    """The schedule as planned and stored (Schedule.as_json, a run's or a replay's `schedule`):
    `order` is the variant order (indexes) of every round; `block` is iterations per block."""

    kind: ScheduleKind
    seed: int
    rounds: int
    block: int
    order: list[list[int]]


@dataclass(frozen=True)
class Step:
    """One block: `iterations` iterations of `group` on variant `variant_index`'s instance.

    round: 1-based; position: 0-based place of the variant in its round's order; block: 1-based
    number of this block in the run, every variant's blocks counted together in execution order.
    """

    round: int
    position: int
    block: int
    variant_index: int
    group: str
    group_index: int
    iterations: int


@dataclass(frozen=True)
class Schedule:
    """The stored schedule (run.schedule, replay_run.schedule): kind, seed, rounds, block (iterations
    per block) and the variant order of every round."""

    kind: str
    seed: int
    rounds: int
    block: int
    order: list[list[int]]

    def as_json(self) -> dict[str, Any]:
        """{"kind", "seed", "rounds", "block", "order": [[variant index, ...] per round]}."""
        return {
            "kind": self.kind,
            "seed": self.seed,
            "rounds": self.rounds,
            "block": self.block,
            "order": self.order,
        }

    def steps(self, groups: list[str]) -> list[Step]:
        """Every block of the run in execution order."""
        steps: list[Step] = []
        if self.kind == "sequential":
            for position, variant in enumerate(self.order[0]):
                for group_index, group in enumerate(groups):
                    steps.append(Step(1, position, len(steps) + 1, variant, group, group_index, self.block))
            return steps
        for round_index, order in enumerate(self.order, start=1):
            for group_index, group in enumerate(groups):
                for position, variant in enumerate(order):
                    steps.append(
                        Step(round_index, position, len(steps) + 1, variant, group, group_index, self.block)
                    )
        return steps

    def after(self, rounds: int, groups: list[str]) -> list[Step]:
        """The blocks of the rounds after the first `rounds` (the ones an extension added)."""
        return [step for step in self.steps(groups) if step.round > rounds]


@dataclass(frozen=True)
class Budget:
    """How far an auto-extension may go: max_rounds rounds in all, and no round started once
    max_minutes have passed since `started` (time.monotonic() seconds; None: no time limit)."""

    max_rounds: int
    max_minutes: float | None
    started: float


def extensions(
    schedule: Schedule,
    budget: Budget,
    undecided: Callable[[], bool],
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Schedule]:
    """The schedule with EXTENSION_STEP more rounds (at most max_rounds in all), each time the previous
    one has run (the caller runs the added rounds, `after`, between two items), while undecided() says
    a verdict is still open and the budget allows another round. undecided is asked only then."""
    while schedule.rounds < budget.max_rounds:
        if budget.max_minutes is not None and clock() - budget.started >= budget.max_minutes * 60:
            return
        if not undecided():
            return
        rounds = min(budget.max_rounds, schedule.rounds + EXTENSION_STEP)
        schedule = plan(schedule.kind, rounds, schedule.block, schedule.seed, len(schedule.order[0]))
        yield schedule


def plan(kind: str, rounds: int, block: int, seed: int, variant_count: int) -> Schedule:
    """The schedule of a run or a replay (see the module docstring)."""
    variants = list(range(variant_count))
    if kind == "sequential":
        return Schedule(kind, seed, 1, block, [variants])
    shuffle = random.Random(seed)
    order = []
    for _ in range(rounds):
        one = list(variants)
        shuffle.shuffle(one)
        order.append(one)
    return Schedule(kind, seed, rounds, block, order)
