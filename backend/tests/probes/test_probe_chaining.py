"""Consecutive iterations of one block read the probes once each: the previous iteration's
after-readings are the next one's before-readings (probes/probe_set.py `around(after_previous=True)`),
never across a raised iteration, and never unless the run loop asks (a block's first iteration, a
restart). A probe of cadence "block" is read at a block's start and end only, its delta (the whole
block's) given with the block's last iteration."""

from typing import Any, ClassVar

import pytest

from upgradelab.probes.base import Measurement
from upgradelab.probes.probe_set import ProbeSet
from upgradelab.targets.provisioners.base import ServerConnection


class Counter:
    """A probe whose reading is a counter that grows by 10 each read (a cumulative server counter)."""

    name: ClassVar[str] = "counter"
    cadence: ClassVar[str] = "iteration"

    def __init__(self) -> None:
        self.reads = 0

    def check(self, probe_connection: ServerConnection, workload_thread_id: int | None) -> None:
        del probe_connection, workload_thread_id

    def read(self, probe_connection: ServerConnection) -> Any:
        del probe_connection
        self.reads += 1
        return self.reads * 10

    def delta(self, before: Any, after: Any) -> list[Measurement]:
        return [Measurement(self.name, "delta", float(after - before))]


def _probes() -> tuple[ProbeSet, Counter]:
    counter = Counter()
    return ProbeSet(None, [counter], {}), counter  # type: ignore[arg-type]  # Counter reads no connection


@pytest.mark.parametrize(
    ("chained", "reads", "deltas"),
    [
        ((False, False, False), 6, [10.0, 10.0, 10.0]),  # before and after each
        ((False, True, True), 4, [10.0, 10.0, 10.0]),  # one reading per iteration after the first
    ],
)
def test_a_chained_iteration_takes_the_previous_after_reading_as_its_before(
    chained: tuple[bool, ...], reads: int, deltas: list[float]
) -> None:
    probes, counter = _probes()
    measured = []
    for number, after_previous in enumerate(chained, start=1):
        with probes.around(number, after_previous=after_previous) as one:
            pass
        measured.append(one.measurements[0].value)
    assert counter.reads == reads
    assert measured == deltas


def test_nothing_is_carried_past_an_iteration_that_raised() -> None:
    probes, counter = _probes()
    with probes.around(1) as first:
        pass
    with pytest.raises(RuntimeError), probes.around(2, after_previous=True):
        raise RuntimeError("server gone")
    with probes.around(3, after_previous=True) as third:
        pass
    # 1: reads 1, 2; 2: before carried (2), raised before its after-read; 3: reads 3 and 4 afresh
    assert [first.measurements[0].value, third.measurements[0].value] == [10.0, 10.0]
    assert counter.reads == 4


class BlockCounter(Counter):
    """The same counter, read per block (as the mutex waits are)."""

    name: ClassVar[str] = "block_counter"
    cadence: ClassVar[str] = "block"


def _block_run(block_ends: list[bool], probes: ProbeSet) -> list[dict[str, float | None]]:
    """One block: the first iteration reads afresh, the others chain; each iteration's deltas by probe."""
    measured = []
    for number, block_end in enumerate(block_ends, start=1):
        with probes.around(number, after_previous=number > 1, block_end=block_end) as one:
            pass
        measured.append({m.probe: m.value for m in one.measurements})
    return measured


def test_a_block_probe_is_read_at_the_block_start_and_end_and_gives_the_whole_block_once() -> None:
    counter, block = Counter(), BlockCounter()
    probes = ProbeSet(None, [counter, block], {})  # type: ignore[arg-type]  # the counters read no connection
    measured = _block_run([False, False, False, True], probes)
    assert [m.get("counter") for m in measured] == [10.0] * 4
    assert [m.get("block_counter") for m in measured] == [None, None, None, 10.0]
    assert (counter.reads, block.reads) == (5, 2)
    # the next block starts afresh: its own start reading, its own delta
    measured = _block_run([False, True], probes)
    assert [m.get("block_counter") for m in measured] == [None, 10.0]
    assert block.reads == 4


def test_a_block_probe_read_every_iteration_when_each_ends_its_block() -> None:
    block = BlockCounter()
    probes = ProbeSet(None, [block], {})  # type: ignore[arg-type]
    measured = _block_run([True, True, True], probes)
    assert [m.get("block_counter") for m in measured] == [10.0, 10.0, 10.0]
    assert block.reads == 4
