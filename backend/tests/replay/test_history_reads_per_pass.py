"""The server's bookkeeping out of the hot path (issue 51): with timing.BATCH_READS on (off by default:
see timing.py), a timed pass reads its runs' history rows in one query after the pass (timing.py
ServerClock.pass_events, the long history), never one read per run. On MariaDB 10.11: a replay's
history reads, counted on the clock's admin connection (the library's reader), are at most two a
pass (one, and one more when the last run's row was not there yet) while its passes ran hundreds of
runs; each run still has its server time and counters. A fake history plays the rows a pass leaves
for the read's rules: the trailing rows of the statement, after the pass's start, the last run's row
waited for."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest

from tests.conftest import lab_provisioner
from tests.datasets.shop import ORDERS
from upgradelab.execution.schedule import plan
from upgradelab.measurement import opening, outcomes, timing
from upgradelab.measurement.dataset_load import DumpDataset, file_sha256
from upgradelab.measurement.engine import ReplayVariant, replay_rounds
from upgradelab.measurement.sources import parse_source
from upgradelab.measurement.timing import ServerClock
from upgradelab.replay.compare import compare
from upgradelab.settings import get_settings
from upgradelab.targets.provisioners.base import ServerConnection

SQL = "SELECT COUNT(*) FROM orders"
NAME = "mariadb-10.11"
QUERIES = "SELECT COUNT(*) FROM orders WHERE note LIKE '%zz%';\nSELECT name FROM customers WHERE id = 3;\n"


class _Long:
    """A fake admin connection: each read of the long history answers the next of `answers` (the
    last from then on), filtered by the query's EVENT_ID > parameter."""

    def __init__(self, answers: list[list[tuple[object, ...]]]) -> None:
        self.answers = answers
        self.reads = 0
        self.after = 0

    @contextmanager
    def cursor(self) -> Iterator["_Long"]:
        yield self

    def execute(self, sql: str, args: Any = None) -> None:
        self.reads += 1
        self.after = int(args[1])

    def fetchall(self) -> list[tuple[object, ...]]:
        rows = self.answers[min(self.reads, len(self.answers)) - 1]
        return [row for row in rows if int(str(row[0])) > self.after]


def _clock(history: _Long, event_id: int) -> ServerClock:
    clock = ServerClock(cast(ServerConnection, history), 7, columns=("ROWS_EXAMINED",), long_size=4096)
    clock.event_id = event_id
    return clock


def test_a_pass_reads_its_runs_trailing_rows_and_waits_once_for_the_last() -> None:
    captured = (11, 7_000_000_000, SQL, 40_000)  # the outcome's capture: the same text, before the pass
    explain = (12, 1_000_000, f"EXPLAIN FORMAT=JSON {SQL}", 0)
    prepare = (13, 1_000_000, "SET SESSION TRANSACTION READ ONLY", 0)
    runs = [(14 + n, (n + 1) * 1_000_000_000, SQL, 40_000) for n in range(3)]
    history = _Long([[captured, explain, prepare, *runs[:2]], [captured, explain, prepare, *runs]])
    clock = _clock(history, 10)
    events = clock.pass_events(SQL, 3, 10)
    assert events is not None and [e.seconds for e in events] == [0.001, 0.002, 0.003]
    assert all(e.counters["rows_examined"] == 40_000 for e in events)
    assert history.reads == 2 and clock.reads == 2  # the last run's row came on the second read
    assert clock.event_id == 16


def test_rows_that_never_all_come_are_none_and_the_pass_counts_the_clients_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timing, "BATCH_READS", True)  # off by default (timing.py)
    history = _Long([[(11, 7_000_000_000, SQL, 40_000)]])  # one row of three: overwritten, or never ended
    clock = _clock(history, 10)
    assert clock.pass_events(SQL, 3, 10) is None

    class _Statements:
        routines = False  # (outcomes.Statements: no stored routine to call, the SET once a pass)

        def prepare(self) -> None:
            pass

        def drain(self, sql: str, prepared: bool = False) -> tuple[int, float]:
            return 0, 0.001

    before = history.reads
    runs = timing.timed_runs(cast(Any, _Statements()), SQL, clock, min_measured_s=1.0, max_repeats=5)
    assert runs == [0.001] * 5
    assert history.reads - before <= 2 + timing.EVENT_WAIT_S / timing.EVENT_POLL_S  # one wait a pass


@pytest.fixture
def no_stages(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Stages off: a run due for its stages is read on its own (timing.py _batched_runs)."""
    monkeypatch.setenv("UPGRADELAB_REPLAY_STAGES", "0")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_a_replay_reads_the_history_once_a_pass_on_mariadb(
    shop_dump: Path, database: None, no_stages: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    original = timing.server_clock  # opening.py's (imported by name there)

    class _Counted:
        def __init__(self, cursor: Any) -> None:
            self.inner = cursor

        def __enter__(self) -> "_Counted":
            self.inner.__enter__()
            return self

        def __exit__(self, *args: object) -> None:
            self.inner.__exit__(*args)

        def execute(self, sql: str, args: Any = None) -> Any:
            if "events_statements_history" in sql and "setup_consumers" not in sql:
                reads.append(sql)
            return self.inner.execute(sql, args)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

    def counted(admin: ServerConnection, session: ServerConnection) -> ServerClock | None:
        clock = original(admin, session)
        if clock is not None:
            connection = clock.admin
            cursor = connection.cursor
            monkeypatch.setattr(connection, "cursor", lambda *a: _Counted(cursor(*a)))
        return clock

    monkeypatch.setattr(opening, "server_clock", counted)
    monkeypatch.setattr(timing, "BATCH_READS", True)  # off by default (timing.py)
    dataset = DumpDataset(shop_dump, file_sha256(shop_dump), "shop")
    statements = parse_source(QUERIES).statements
    provisioner = lab_provisioner(NAME, suffix="replay")
    (replay,) = replay_rounds(
        [ReplayVariant(NAME, provisioner, [])], dataset, statements, plan("interleaved", 1, 2, 1, 1)
    )
    assert replay.clock == "server"
    pass_calls = 3 * 3  # two user statements and DO 0: a warm-up pass and two timed passes each
    executions = sum(tally.executions for tally in replay.work)
    assert executions > 10 * pass_calls  # DO 0 alone runs ~200 times a pass
    assert len(reads) <= 2 * pass_calls, f"{len(reads)} history reads for {executions} timed runs"
    scan, lookup = (report.work[NAME] for report in compare(statements, [replay]))
    assert scan.counters["rows_examined"].low >= ORDERS and lookup.counters["rows_examined"].high <= 1
    assert all(t is not None and 0 < t < 1 for times in replay.times for t in times)


class _Prepared:
    """Fake statements: counts prepare() and records each run's `prepared` (its own SET or not)."""

    def __init__(self, routines: bool = False) -> None:
        self.prepares = 0
        self.runs: list[bool] = []
        self.routines = routines  # outcomes.Statements.routines: may call a stored routine

    def prepare(self) -> None:
        self.prepares += 1

    def drain(self, sql: str, prepared: bool = False) -> tuple[int, float]:
        self.runs.append(prepared)
        return 0, 0.001


@pytest.mark.parametrize(
    ("batched", "every", "routines", "prepares", "own_set"),
    [
        (False, None, False, 0, True),  # run by run: the SET before every run (the code before issue 51)
        (False, "pass", False, 1, False),
        (False, "pass", True, 0, True),  # a routine could make the session read-write between runs
        (True, None, False, 1, False),  # batched: once a pass
        (True, None, True, 0, True),
        (True, "run", False, 0, True),
    ],
)
def test_the_read_only_set_comes_once_a_pass_or_before_every_run_as_asked(
    monkeypatch: pytest.MonkeyPatch,
    batched: bool,
    every: str | None,
    routines: bool,
    prepares: int,
    own_set: bool,
) -> None:
    """timing.READ_ONLY_EVERY separates the batched pass's two changes (bench/replay_aa_reads.py):
    where the session is made read-only, whatever reads the rows; before every run where the session
    may call a stored routine (outcomes.Statements.routines)."""
    monkeypatch.setattr(timing, "BATCH_READS", batched)
    monkeypatch.setattr(timing, "READ_ONLY_EVERY", every)
    rows: list[tuple[object, ...]] = [(11 + n, 1_000_000_000, SQL, 40_000) for n in range(4)]
    if batched and own_set:  # the SET's rows between the runs (stepped over)
        rows = [
            (11 + 2 * n + k, 1_000_000_000, (outcomes.READ_ONLY_SET, SQL)[k], 0)
            for n in range(4)
            for k in (0, 1)
        ]
    clock = _clock(_Long([rows]), 10) if batched else None
    statements = _Prepared(routines)
    runs = timing.timed_runs(cast(Any, statements), SQL, clock, min_measured_s=1.0, max_repeats=4)
    assert runs == [0.001] * 4  # the rows' TIMER_WAIT (1 ms) or, without a clock, the client's time
    assert statements.prepares == prepares
    assert statements.runs == [not own_set] * 4


@pytest.mark.parametrize(("routines", "prepares"), [(False, 1), (True, 0)])
def test_by_default_a_pass_is_made_read_only_once_where_no_routine_can_be_called(
    routines: bool, prepares: int
) -> None:
    """The product's default (issue 51, round 5: bench/README.md): the per-run path's SET once a
    pass (timing.READ_ONLY_EVERY "pass"), before every run where the session may call a routine."""
    statements = _Prepared(routines)
    runs = timing.timed_runs(cast(Any, statements), SQL, None, min_measured_s=1.0, max_repeats=4)
    assert runs == [0.001] * 4
    assert statements.prepares == prepares and statements.runs == [not routines] * 4


def test_a_pass_with_the_set_before_every_run_steps_over_the_sets_rows() -> None:
    """READ_ONLY_EVERY "run" on the batched path (bench/replay_aa_reads.py's batch-set): a SET's row
    between every two runs; the newest row a SET means the last run has not ended: waited for."""
    captured = (11, 7_000_000_000, SQL, 40_000)
    explain = (12, 1_000_000, f"EXPLAIN FORMAT=JSON {SQL}", 0)
    sets = [(13 + 2 * n, 1_000_000, outcomes.READ_ONLY_SET, 0) for n in range(3)]
    runs = [(14 + 2 * n, (n + 1) * 1_000_000_000, SQL, 40_000) for n in range(3)]
    pairs = [row for pair in zip(sets, runs, strict=True) for row in pair]
    history = _Long([[captured, explain, *pairs[:5]], [captured, explain, *pairs]])
    clock = _clock(history, 10)
    events = clock.pass_events(SQL, 3, 10)
    assert events is not None and [e.seconds for e in events] == [0.001, 0.002, 0.003]
    assert (
        history.reads == 2 and clock.event_id == 18
    )  # the first read ended on a SET: the last run's row waited for
