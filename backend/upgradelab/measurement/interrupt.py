"""Stopping a replay from another thread (a cancel): the Interrupt that kills the statement running
and stops servers still starting, and what an interrupted replay keeps (ReplayCancelled)."""

import threading
from collections.abc import Callable

from upgradelab.execution.cancel import stop_servers
from upgradelab.measurement.opening import OpenVariant, VariantReplay
from upgradelab.targets.provisioners import Provisioner
from upgradelab.targets.statement_timeout import StatementBound


class Interrupt:
    """Stops a replay from another thread: set() interrupts every variant's statement bound (the
    statement running is killed, none other starts); bounds attached later start interrupted. While
    a variant has no bound yet (its server starting, its datadir initialized, the dump loading, its
    tables analysed), set() also stops the servers of the replay's provisioners (`servers`, given by
    replay_rounds) through their own handles: a start that has not answered yet has no pid file for
    the runner's stop_targets to find. `kept`, when given, is called with what the interrupted replay
    measured (ReplayCancelled) before its servers are stopped (a sharded replay's shard stores it at
    once, replay/shard_runner.py: its servers may take long to stop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bounds: list[StatementBound] = []
        self._set = False
        self.servers: list[Provisioner] = []
        self.kept: Callable[[ReplayCancelled], None] | None = None

    @property
    def is_set(self) -> bool:
        return self._set

    @property
    def attached(self) -> int:
        """Bounds attached so far: one per variant whose server started and holds the dataset."""
        return len(self._bounds)

    def attach(self, bound: StatementBound) -> None:
        with self._lock:
            self._bounds.append(bound)
            if self._set:
                bound.interrupt()

    def set(self) -> None:
        """Interrupt now; from any thread, idempotent (a server that started since the last call is
        stopped by the next)."""
        with self._lock:
            self._set = True
            for bound in self._bounds:
                bound.interrupt()
            starting = len(self._bounds) < len(self.servers)
        if starting:
            stop_servers("replay", self.servers)


class ReplayCancelled(Exception):
    """The replay was interrupted. `replays`: what every variant measured, cut to what compares:
    the outcomes of the first `captured` statements (captured on every variant) and the timed runs
    of the `rounds` rounds every variant completed."""

    def __init__(self, replays: list[VariantReplay], captured: int, rounds: int) -> None:
        super().__init__(f"interrupted after {captured} statements captured and {rounds} rounds")
        self.replays, self.captured, self.rounds = replays, captured, rounds


def measured(opened: dict[int, OpenVariant], count: int, rounds: int) -> ReplayCancelled:
    """What an interrupted replay keeps (ReplayCancelled's docstring)."""
    replays = [opened[index].replay for index in range(count) if index in opened]
    captured = min((len(r.outcomes) for r in replays), default=0) if len(replays) == count else 0
    for replay in replays:
        replay.outcomes = replay.outcomes[:captured]
        times = replay.times or [[] for _ in range(captured)]
        replay.times = [one[: rounds * replay.passes] for one in times[:captured]]
        replay.work = replay.work[:captured]  # counters of every timed run, a round cut short too
        client = replay.client_times or [[] for _ in range(captured)]
        replay.client_times = [one[: rounds * replay.passes] for one in client[:captured]]
        replay.stages = replay.stages[:captured]
        for tally in replay.stages:
            tally.cut(rounds * replay.passes)
        if replay.null_statement is not None and replay.null_statement >= captured:
            replay.null_statement = None  # not captured on every variant: no per-statement cost
    return ReplayCancelled(replays, captured, rounds if captured else 0)
