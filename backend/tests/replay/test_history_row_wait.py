"""The server ends a statement's event after it sent the last row to the client: a read of the
history right after the statement can still see the previous statement (a CI run on a loaded host
lost every work counter of a slow statement that way). ServerClock.last waits for the statement's
own, newer row; a fake admin connection plays the server's rows in order."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

from upgradelab.measurement import timing
from upgradelab.measurement.timing import ServerClock
from upgradelab.targets.provisioners.base import ServerConnection

SQL = "SELECT COUNT(*) FROM orders"


class _History:
    """Answers each read of the history with the next of `rows` (the last one from then on)."""

    def __init__(self, rows: list[tuple[object, ...]]) -> None:
        self.rows = rows
        self.reads = 0

    @contextmanager
    def cursor(self) -> Iterator["_History"]:
        yield self

    def execute(self, sql: str, args: Any = None) -> None:
        self.reads += 1

    def fetchone(self) -> tuple[object, ...]:
        return self.rows[min(self.reads, len(self.rows)) - 1]


def _clock(history: _History, event_id: int) -> ServerClock:
    clock = ServerClock(cast(ServerConnection, history), 7, columns=("ROWS_EXAMINED",))
    clock.event_id = event_id
    return clock


def test_a_read_that_sees_the_previous_statement_waits_for_this_ones_row() -> None:
    previous = (10, 5_000_000_000, SQL, 40_000)  # the same text: the run before, already read
    init_db = (11, 1_000_000, None, 0)  # a statement in between (COM_INIT_DB has no text)
    this = (12, 9_000_000_000, SQL, 40_000)
    history = _History([previous, init_db, this])
    event = _clock(history, 10).last(SQL)
    assert event is not None and event.seconds == 0.009 and event.counters["rows_examined"] == 40_000
    assert history.reads == 3


def test_a_row_that_never_comes_is_none_after_the_wait_and_the_pass_stops_waiting() -> None:
    history = _History([(10, 5_000_000_000, SQL, 40_000)])
    clock = _clock(history, 10)
    assert clock.last(SQL) is None
    assert history.reads > 2  # it did wait

    class _Statements:
        routines = True  # (outcomes.Statements: may call a routine, made read-only before every run)

        def drain(self, sql: str) -> tuple[int, float]:
            return 0, 0.001

    before = history.reads
    runs = timing.timed_runs(cast(Any, _Statements()), SQL, clock, min_measured_s=1.0, max_repeats=5)
    assert runs == [0.001] * 5  # the client's time of every run
    assert history.reads - before <= 2 + timing.EVENT_WAIT_S / timing.EVENT_POLL_S  # one wait, not five
