"""A run's auto-extension (experiment.max_rounds / max_minutes) against the simulated oracle.

Driven through the product's own code: runs/executor/runner.py `_extend` asks results/store/summary.py
`undecided` (the verdict table of what is stored so far, verdict_table.py, at the confidence
`confidence_for(looks)` shares among the looks) and adds execution/schedule.py `extensions`' rounds.
Only what touches a server or the database is simulated: `_block` (a block's iterations, from
simulate.py), `rounds.load` (the stored iterations, from the same) and the state writes. Asserted: an
A/A run extended to max_rounds still calls a regression or improvement at most 5 % of the time over
all its looks (the Bonferroni share of verdicts.confidence_for), a planted effect stops the extension
as soon as it is decided, the budget (rounds, minutes) is never passed."""

import contextlib
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from tests.oracle.simulate import LOADED, Noise, at_least, at_most, simulate
from upgradelab.execution.schedule import EXTENSION_STEP, Budget, Step, extensions, plan
from upgradelab.results.stats import verdicts
from upgradelab.results.store import rounds, summary
from upgradelab.results.store.rounds import Point, RunRounds, VariantRounds
from upgradelab.results.store.verdict_table import VerdictRow
from upgradelab.runs.executor import runner, state
from upgradelab.workloads.base import SECONDS

BLOCK = 3


class SimulatedRun:
    """One run's stored iterations, produced block by block as the runner asks for them: a round's
    noise (its shared drift and every variant's block) drawn when its first block runs."""

    def __init__(
        self, ratios: Sequence[float], noise: Noise, rng: np.random.Generator, aa_control: int | None
    ) -> None:
        self.ratios, self.noise, self.rng = list(ratios), noise, rng
        self.drawn: dict[int, np.ndarray] = {}
        self.variants = [
            VariantRounds(1, index, f"v{index}", index == aa_control, groups={"": []})
            for index in range(len(ratios))
        ]

    def block(self, variant: int, round_: int) -> None:
        if round_ not in self.drawn:
            self.drawn[round_] = simulate(self.rng, self.ratios, 1, BLOCK, self.noise)[0, :, 0]
        for value in self.drawn[round_][variant]:
            point = Point(len(self.variants[variant].points) + 1, round_, float(value), {})
            self.variants[variant].points.append(point)
            self.variants[variant].groups[""].append(point)

    @property
    def rounds(self) -> int:
        return len(self.drawn)


class Harness:
    """The runner's extension with the simulated run in place of servers and database."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.current: SimulatedRun | None = None
        self.stored: list[int] = []  # the rounds of each schedule the runner stored
        self.experiment = SimpleNamespace(rounds=10, max_rounds=30, max_minutes=None)
        self.run = SimpleNamespace(id=1, experiment=self.experiment)

        @contextlib.contextmanager
        def session() -> Iterator[Any]:
            yield SimpleNamespace(get=lambda _model, _id: self.run)

        def load(_session: Any, run: Any, warmup: int = 0) -> RunRounds:
            assert self.current is not None
            return RunRounds(run, self.current.variants, [""], (SECONDS,))

        def block(_loop: Any, _variant: Any, step: Step) -> None:
            assert self.current is not None
            self.current.block(step.variant_index, step.round)

        def write(_run_id: int, change: Any) -> Any:
            self.stored.append(change.run_fields["schedule"]["rounds"])

        monkeypatch.setattr(summary, "sync_session", session)
        monkeypatch.setattr(rounds, "load", load)
        monkeypatch.setattr(runner, "_block", block)
        monkeypatch.setattr(state, "write", write)

    def run_one(
        self,
        ratios: Sequence[float],
        noise: Noise,
        seed: int,
        planned: int = 10,
        max_rounds: int = 30,
        aa_control: int | None = None,
        begun: float | None = None,
    ) -> tuple[list[VerdictRow], int]:
        """One run: its planned rounds, then the runner's extension; (its final verdict table, rounds)."""
        self.experiment.rounds, self.experiment.max_rounds = planned, max_rounds
        simulated = SimulatedRun(ratios, noise, np.random.default_rng(seed), aa_control)
        self.current = simulated
        schedule = plan("interleaved", planned, BLOCK, seed, len(ratios))
        for step in schedule.steps([""]):
            simulated.block(step.variant_index, step.round)
        loop = SimpleNamespace(
            run=SimpleNamespace(
                run_id=1, experiment=self.experiment, workload=SimpleNamespace(groups=lambda: [""])
            ),
            failed={},
            writer=SimpleNamespace(flush=lambda: None),
        )
        runner._extend(loop, schedule, time.monotonic() if begun is None else begun, dict(enumerate(ratios)))  # type: ignore[arg-type]
        rows = summary.compute_summary(None, self.run)  # type: ignore[arg-type]
        return rows, simulated.rounds


def _verdict(rows: list[VerdictRow], index: int) -> str:
    decision = next(r for r in rows if r.variant_index == index).decision(verdicts.DEFAULT_THRESHOLD)
    assert decision is not None
    return decision.verdict


@pytest.fixture
def harness(monkeypatch: pytest.MonkeyPatch) -> Harness:
    return Harness(monkeypatch)


def test_an_aa_run_extended_over_five_looks_keeps_its_false_verdicts_within_five_percent(
    harness: Harness,
) -> None:
    """10 planned rounds, max 30: 5 looks, each at 99 % (confidence_for). On a loaded host an A/A pair
    stays open to the end, so every run takes every look: the worst case for sequential looks."""
    trials = 100
    seen: Counter[str] = Counter()
    spent: Counter[int] = Counter()
    for trial in range(trials):
        rows, used = harness.run_one([1.0, 1.0], LOADED, 1000 + trial)
        seen[_verdict(rows, 1)] += 1
        spent[used] += 1
    false = (seen["regression"] + seen["improvement"]) / trials
    assert false <= at_most(1 - verdicts.CONFIDENCE, trials), seen
    assert set(spent) <= {10, 15, 20, 25, 30} and max(spent) == 30
    # the schedule stored before each extension's rounds, EXTENSION_STEP at a time, never past max_rounds
    assert all(r <= 30 and (r - 10) % EXTENSION_STEP == 0 for r in harness.stored)


def test_a_planted_effect_stops_the_extension_once_decided_and_in_its_direction(harness: Harness) -> None:
    """0.88x on a quiet host: open at 10 rounds in some runs, decided within the budget in nearly all;
    a run stops at the first look where nothing is open and never extends past a decided verdict."""
    trials = 40
    seen: Counter[str] = Counter()
    spent: list[int] = []
    for trial in range(trials):
        rows, used = harness.run_one([1.0, 0.88], Noise(block_sd=0.08), 2000 + trial)
        verdict = _verdict(rows, 1)
        seen[verdict] += 1
        spent.append(used)
        if used < 30:  # stopped early: only because nothing was open any more
            assert verdict not in summary.OPEN
    assert seen["improvement"] / trials >= 0.9, seen
    assert seen["regression"] == 0
    assert np.median(spent) < 30 and min(spent) == 10  # most stop before the budget, some at once


def test_an_aa_control_whose_floor_is_open_keeps_the_run_extending_to_its_budget(harness: Harness) -> None:
    """With an A/A control the run extends while the control's own verdict is open too (the others
    are read against its floor); a 1.5x variant is still decided against that floor at the end."""
    trials = 10
    seen: Counter[str] = Counter()
    for trial in range(trials):
        rows, used = harness.run_one([1.0, 1.5, 1.0], LOADED, 3000 + trial, aa_control=2)
        assert used == 30  # a loaded A/A floor never narrows to "no significant difference" (5 %)
        seen[_verdict(rows, 1)] += 1
    assert seen["regression"] / trials >= at_least(0.95, trials), seen


def test_the_minutes_budget_stops_the_extension_before_a_round_starts(harness: Harness) -> None:
    harness.experiment.max_minutes = 1.0
    _, used = harness.run_one([1.0, 1.0], LOADED, 4000, begun=time.monotonic() - 61)
    assert used == 10 and harness.stored == []
    # and in the middle of the extension: a clock past the budget after the second step stops it there
    ticks = iter([0.0, 10.0, 61.0, 62.0])
    budget = Budget(max_rounds=30, max_minutes=1.0, started=0.0)
    schedule = plan("interleaved", 10, 3, 1, 2)
    longer = list(extensions(schedule, budget, lambda: True, clock=lambda: next(ticks)))
    assert [s.rounds for s in longer] == [15, 20]
