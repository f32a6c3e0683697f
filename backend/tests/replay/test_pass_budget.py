"""What a timed pass's repetition budget counts (timing.py BUDGET, issue 51 round 5): by default the
runs' own client time, so what a pass does between its runs (each run's history read, the read-only
SET) is not counted and a fast statement's pass of 200 runs costs ~100 ms of wall; with "wall" the
pass stops once its wall clock reached the budget, the runs and their reads together. A fake clock
(time.perf_counter) advanced by the fake runs and the fake history reads: deterministic."""

import time
from typing import Any, cast

import pytest

from upgradelab.measurement import timing
from upgradelab.measurement.timing import StatementEvent

SQL = "SELECT 1"
RUN_S = 0.00005  # each run's client time
READ_S = 0.00045  # each run's history read (and SET), outside the run
BUDGET_S = 0.0198  # a pass's (a margin under 20 ms for the float sums)


class _Now:
    """A perf_counter the fakes advance."""

    def __init__(self) -> None:
        self.at = 1000.0

    def __call__(self) -> float:
        return self.at


class _Runs:
    """Fake statements: each drain takes RUN_S of the clock and answers it as its client time."""

    def __init__(self, now: _Now) -> None:
        self.now = now
        self.runs = 0
        self.routines = True  # outcomes.Statements': made read-only before every run

    def prepare(self) -> None:
        return None

    def drain(self, sql: str, prepared: bool = False) -> tuple[int, float]:
        self.runs += 1
        self.now.at += RUN_S
        return 1, RUN_S


class _Reads:
    """A fake server clock: each run's row read takes READ_S of the clock; the reads that asked for
    the run's stages are noted by number."""

    def __init__(self, now: _Now) -> None:
        self.now = now
        self.stage_reads: list[int] = []
        self.reads = 0

    def last(self, sql: str, stages: bool = False) -> StatementEvent:
        self.reads += 1
        self.now.at += READ_S
        if stages:
            self.stage_reads.append(self.reads)
        return StatementEvent(RUN_S / 2, {})


@pytest.fixture
def now(monkeypatch: pytest.MonkeyPatch) -> _Now:
    clock = _Now()
    monkeypatch.setattr(time, "perf_counter", clock)  # timing.PassBudget's clock
    return clock


@pytest.mark.parametrize(("budget", "runs"), [("runs", 200), ("wall", 40)])
def test_the_budget_counts_the_runs_or_the_passs_wall_clock(
    monkeypatch: pytest.MonkeyPatch, now: _Now, budget: str, runs: int
) -> None:
    """~20 ms of budget, 0.05 ms runs each followed by a 0.45 ms read: on the runs' own time the
    pass stops at MAX_REPEATS (200 runs, 100 ms of wall); on the wall clock at 40 runs (20 ms)."""
    monkeypatch.setattr(timing, "BUDGET", budget)
    statements, clock = _Runs(now), _Reads(now)
    started = now.at
    seconds = timing.timed_runs(cast(Any, statements), SQL, cast(Any, clock), BUDGET_S, 200)
    assert seconds is not None and len(seconds) == statements.runs == clock.reads == runs
    assert seconds == [RUN_S / 2] * runs  # the server's time of each run, whatever the budget
    assert now.at - started == pytest.approx(runs * (RUN_S + READ_S))


def test_the_wall_budget_spreads_the_stage_reads_over_the_passs_wall_clock(
    monkeypatch: pytest.MonkeyPatch, now: _Now
) -> None:
    """Runs due for their stages (timing.StageSpread) are marked on the same measure the pass
    stops on: 10 of them over the wall clock's 40 runs (every 4th), where marks on the runs' own
    time (a mark every 2 ms of it, or every 20th run) would read only 2."""
    monkeypatch.setattr(timing, "BUDGET", "wall")
    statements, clock = _Runs(now), _Reads(now)
    stages: list[Any] = []
    seconds = timing.timed_runs(
        cast(Any, statements), SQL, cast(Any, clock), BUDGET_S, 200, stages=stages, stage_runs=10
    )
    assert seconds is not None and len(seconds) == 40
    assert len(clock.stage_reads) == 10 and clock.stage_reads[-1] > 30
