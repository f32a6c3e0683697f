"""How a replayed statement is timed: by the server's own clock where performance_schema gives it,
the client's otherwise, and repeated until enough time was measured.

One concept: a timed run's value, from its clock (the server's event row, read run by run or a pass's
rows at once) and its repetition budget to the pair's common clock; split, each half would need the
other's clock rules.

Clock. performance_schema.events_statements_history holds, per thread, the statements it completed
with TIMER_WAIT in picoseconds: the server's time from parse to the last row sent, without the
network, the client's parsing of rows or a thread switch on the lab's side. It is read on a second
(admin) connection by the replay session's THREAD_ID and checked to be that statement (SQL_TEXT):
right after each run (`ServerClock.last`, polled until the server closed the statement's event), or,
with BATCH_READS on (off by default, see there), a pass's runs once the pass ended in one query of
events_statements_history_long (`ServerClock.pass_events`, issue 51). Every instance the lab
starts for a replay starts with CLOCK_OPTIONS (performance_schema ON, MariaDB's default being OFF,
and the statement consumers), before the variant's own options: every lab variant is timed by
TIMER_WAIT, and performance_schema's own cost is the same on every variant. A variant's clock is
"server" where its server gives TIMER_WAIT, "client" (perf_counter around execute + fetch) where it
cannot (an existing server with performance_schema OFF, which the lab cannot turn on, or a variant
whose own options turn it off). A timed run records the client's time too, so a ratio always has one
clock on both sides (`pair_clock`): the server's when both have it, else the client's of both.
A timed run reads its rows to the end and drops them one by one (an unbuffered cursor,
outcomes.Statements.drain): the same work on every variant, and a large result is never held.

Repetition (as Google Benchmark scales its iterations): in each pass a statement runs until
MIN_MEASURED_S seconds were measured (BUDGET: the runs' own client time by default, or the pass's
wall clock) or MAX_REPEATS runs, and the pass's value is the median of
those runs. A 0.1 ms statement gets ~200 samples per pass, a 50 ms one runs once; one slow run (a
page fault, a context switch) moves a median of many runs far less than it moves a single run.
"Measured" is the client's time of the runs whatever the clock: the server's TIMER_WAIT of a fast
statement is a fraction of it (MariaDB 10.11, loaded host: SELECT 1 37 us of 120, DO 0 13 us of 64),
so a budget on it ran nearly every fast statement MAX_REPEATS times, each with its clock read: a
round of 3 statements x 2 passes took 1.5-2.3 s against 0.21-0.27 s on the client's clock. On the
client's time it takes 0.43-0.71 s (the clock's read after each run is the rest), with 18-50 runs
per pass of a fast statement (1-2 ms of server time in all; TIMER_WAIT scatters far less than the
client's time, which holds the network and both sides' scheduling).
"""

import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Literal

import pymysql

from upgradelab.measurement import stage_events
from upgradelab.measurement.counters import COLUMNS_QUERY, WorkTally, event_counters, history_columns
from upgradelab.measurement.outcomes import READ_ONLY_SET, Statements
from upgradelab.measurement.stage_events import RunStages
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.targets.statement_timeout import StatementTimedOut

Clock = Literal["server", "client"]
MIN_MEASURED_S = 0.020
MAX_REPEATS = 200
PICOSECONDS = 1e12
_HISTORY = "events_statements_history"
# the SQL_TEXT column keeps the statement's first 1024 characters (performance_schema_max_sql_text_length)
_TEXT_CHECKED = 64
# How long `last` waits for a statement's history row, and between its reads (seconds)
EVENT_WAIT_S = 0.2
EVENT_POLL_S = 0.0005
# A pass's runs are read in one query of the long history after the pass (`ServerClock.pass_events`,
# issue 51) when True; False (the default) reads each run's row right after it (`last`), as before.
# Off by default: batched, the rounds took 0.54-0.67x the time (bench/replay_speed.py) but
# bench/replay_causes.py's A/A control read "same" on 42 % and 70 % of its fingerprints (10 false
# "faster", stages) where the per-run reads gave 100 % (bench/README.md): not understood yet; with the
# turns balanced too (turns.BALANCED), 45 % against 67 % and 73 % run by run in the same sittings,
# DO 0's floor 1.04x [1.01, 1.06] (bench/README.md, "The replay's speed defaults"). The
# long history is global (every thread's statements, the admin's reads too): an instance the lab
# starts keeps HISTORY_LONG_SIZE rows, a pass of MAX_REPEATS runs (its SET, its stage reads and its
# read: ~215 rows) with a margin, and no more: the server scans the whole table for a read (MariaDB
# 10.11, 11.8 on the timing CPU: ~19 ms at 4096 rows, 29 % of the rounds); a server keeping fewer
# than MIN_HISTORY_LONG or more than MAX_HISTORY_LONG (an existing server's default, 10,000: a read
# of it would cost more than the per-run reads of a slow statement's pass, and its other clients'
# statements may overwrite a pass's rows) is read run by run.
BATCH_READS = False
# When the session is made read-only (outcomes.Statements.prepare, `SET SESSION TRANSACTION READ
# ONLY`): "run" before every run, "pass" once before a pass's runs; None: each path's own (run by run:
# before every run, as before issue 51; batched: once a pass). bench/replay_aa_reads.py sets it to
# test the batched pass's two changes (the reads, the SET) apart on the A/A control. Once a pass only
# where the session can call no stored routine (outcomes.Statements.routines): a procedure can make
# the session read-write on one run and write on the next (tests/replay/test_hostile_statements.py).
# "pass" by default since issue 51's round 5 (bench/README.md, "Round 5"): replay_aa_reads.py at a
# replay's rounds and extension, alternated with the SET before every run in two sittings: A/A "same"
# 100 % in both arms of both, the DO 0 floor 0.98x and 1.00x (1.01x and 1.04x run by run), c's own
# false findings 0 and 3 (4 and 1), 256 s and 239 s against 485 s and 304 s; the sample's rounds
# (replay_speed.py) 65.5 s against 87.3 s.
READ_ONLY_EVERY: Literal["run", "pass"] | None = "pass"
# What a pass's repetition budget (MIN_MEASURED_S) counts (issue 51, round 5): "runs" (the default)
# the runs' own client time, execute + fetch; "wall" the pass's wall clock from its first run, the runs
# with what the pass does between them (each run's history read, `ServerClock.last`; the read-only SET
# before every run; the stage reads): a pass then costs about MIN_MEASURED_S whatever that overhead,
# where on "runs" a 0.1 ms statement's 200 runs took ~100 ms of wall (~0.4 ms of read and SET a run,
# bench/README.md "The replay's speed defaults"), and runs fewer runs where the overhead is larger.
# bench/replay_aa_reads.py and replay_speed.py set it (their "+wall" modes). Stays "runs": the sample's
# rounds took 36 s against 87 s, but c's own false findings in replay_aa_reads.py were 7 against 4
# on the defaults in the same sitting, and with the SET once a pass too the A/A control read "same" on
# 82 % against 100 % (bench/README.md, "Round 5").
BUDGET: Literal["runs", "wall"] = "runs"
_HISTORY_LONG = "events_statements_history_long"
# The session's own statements between a pass's runs where it is made read-only before every run
# (READ_ONLY_EVERY "run"; outcomes.Statements.prepare): `pass_events` steps over their rows
_BETWEEN_RUNS = (READ_ONLY_SET, "ROLLBACK")
HISTORY_LONG_SIZE = 512
MIN_HISTORY_LONG = 2 * MAX_REPEATS + 64
MAX_HISTORY_LONG = 4 * HISTORY_LONG_SIZE
# Option-file lines every instance the lab starts for a replay gets before the variant's own (as the
# run's probes do, probes/probe_set.py): the statement events TIMER_WAIT is read from, and the stage
# events of each statement (measurement/stage_events.py). The names are the same on MySQL 8.0+/9.x and
# MariaDB 10.5+.
CLOCK_OPTIONS = (
    "performance_schema=ON",
    "performance-schema-consumer-events-statements-current=ON",
    f"performance-schema-consumer-{_HISTORY.replace('_', '-')}=ON",
    f"performance-schema-consumer-{_HISTORY_LONG.replace('_', '-')}=ON",
    f"performance_schema_events_statements_history_long_size={HISTORY_LONG_SIZE}",
    *stage_events.STAGE_OPTIONS,
)


@dataclass(frozen=True)
class StatementEvent:
    """A statement's row of the history: its TIMER_WAIT in seconds, its work counters
    (measurement/counters.py event_counters: {name: value}) and, when they were read with it, its stages
    (measurement/stage_events.py RunStages; None: not asked, or the server keeps none)."""

    seconds: float
    counters: dict[str, float]
    stages: RunStages | None = None


@dataclass
class ServerClock:
    """Reads a session's last statement's TIMER_WAIT (seconds) and work counters on an admin
    connection of its server. `columns`: the counter columns its history has (measurement/counters.py
    history_columns), asked of the server at the first read."""

    admin: ServerConnection
    thread_id: int
    columns: tuple[str, ...] | None = field(default=None)
    event_id: int = 0  # the EVENT_ID of the last row read (`last`)
    # the per-thread stage history's size where the server keeps stage events (stage_events.py), asked
    # with the counter columns; None: it keeps none (or not asked yet)
    stage_size: int | None = None
    # the long history's size where its consumer is on (asked with the counter columns); None: it
    # is off or its size out of MIN_HISTORY_LONG..MAX_HISTORY_LONG (each run is read by `last`)
    long_size: int | None = None
    reads: int = 0  # queries of the history made (`last`'s and `pass_events`'): tests and benches count them

    def counter_columns(self) -> tuple[str, ...]:
        """The counter columns of this server's events_statements_history (asked once, with whether
        it keeps stage events: `stage_size`). Where it has CPU_TIME (MySQL 8.0.28+), its consumer is
        turned on too: off by default, CPU_TIME reads 0."""
        if self.columns is None:
            with self.admin.cursor() as cursor:
                cursor.execute(COLUMNS_QUERY)
                self.columns = history_columns([str(row[0]) for row in cursor.fetchall()])
                if "CPU_TIME" in self.columns:
                    cursor.execute(
                        "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' "
                        "WHERE NAME = 'events_statements_cpu'"
                    )
                cursor.execute(stage_events.STATUS_QUERY)
                status = cursor.fetchone()
                self.stage_size = stage_events.history_size(*status) if status else None
                cursor.execute(_LONG_STATUS_QUERY)
                long = cursor.fetchone()
                on = bool(long) and int(str(long[0] or 0)) > 0
                size = int(str(long[1] or 0)) if long else 0
                self.long_size = size if on and MIN_HISTORY_LONG <= size <= MAX_HISTORY_LONG else None
        return self.columns

    def pass_events(self, sql: str, runs: int, after: int) -> list[StatementEvent] | None:
        """The rows of a pass's `runs` runs of `sql`, oldest first, read in one query of the long
        history (the thread's top-level statements newer than EVENT_ID `after`, the pass's start),
        repeated until the last run's row is there for at most EVENT_WAIT_S (the server ends a
        statement's event after it sent the last row: `last`): once a pass, never a read per run.
        The pass's runs are the trailing `runs` rows of `sql` with no other statement of the thread
        after them but the read-only SET made before every run (READ_ONLY_EVERY "run": its rows,
        `_BETWEEN_RUNS`, are stepped over; a row of the same text before the pass, its outcome's
        capture, is never one of them; the newest row must be the last run's). None when they never
        all are (the long history off, too small or overwritten: the pass counts the client's time,
        as `last`'s None); [] for runs == 0. Moves `event_id` past the rows read. Counters as
        `last`'s; no stages (a run due for its stages is read by `last`)."""
        if runs <= 0:
            return []
        columns = self.counter_columns()
        if self.long_size is None:
            return None
        deadline = time.monotonic() + EVENT_WAIT_S
        while True:
            with self.admin.cursor() as cursor:
                cursor.execute(
                    f"SELECT EVENT_ID, TIMER_WAIT, SQL_TEXT{''.join(', ' + c for c in columns)} "
                    f"FROM performance_schema.{_HISTORY_LONG} WHERE THREAD_ID = %s AND EVENT_ID > %s "
                    "AND (NESTING_EVENT_TYPE IS NULL OR NESTING_EVENT_TYPE = 'TRANSACTION') "
                    "ORDER BY EVENT_ID",
                    (self.thread_id, after),
                )
                rows = [tuple(row) for row in cursor.fetchall()]
            self.reads += 1
            tail: list[tuple[object, ...]] = []
            for row in reversed(rows):
                if _is(row[2], sql) and row[1] is not None:
                    tail.append(row)
                elif not tail or not any(_is(row[2], between) for between in _BETWEEN_RUNS):
                    break  # (the newest row is the last run's: a SET newest, that run has not ended)
            if len(tail) >= runs:
                self.event_id = max(self.event_id, max(int(str(row[0])) for row in rows))
                return [
                    StatementEvent(int(str(row[1])) / PICOSECONDS, event_counters(columns, tuple(row[3:])))
                    for row in reversed(tail[:runs])
                ]
            if time.monotonic() >= deadline:
                if rows:
                    self.event_id = max(self.event_id, max(int(str(row[0])) for row in rows))
                return None
            time.sleep(EVENT_POLL_S)

    def last(self, sql: str, stages: bool = False) -> StatementEvent | None:
        """The seconds and counters of the session's statement `sql` that just completed: the
        history's newest row when it is newer than the last one read here (EVENT_ID) and is `sql`
        (SQL_TEXT). The server sends the last row to the client before it ends the statement's event,
        so a read right after can still see the previous statement (on a loaded host, every run of a
        slow statement did): the read is repeated until that row is there, for at most
        EVENT_WAIT_S. None when it never is (a statement the history does not keep).
        stages: also its stage events, in the same query (stage_events.py; where the server keeps
        them, `stage_size`). On the batched path (BATCH_READS, off) the runs before a due run are
        not read, so the history's newest row can still be the run before it: its stages then a
        neighbour's (reading events_statements_current instead lost MariaDB's counters: rows
        examined 0, tests/replay/test_work_counters_on_server.py)."""
        columns = self.counter_columns()
        size = self.stage_size if stages else None
        deadline = time.monotonic() + EVENT_WAIT_S
        while True:
            with self.admin.cursor() as cursor:
                if size is None:  # the statement's row alone: (EVENT_ID, TIMER_WAIT, SQL_TEXT, counters)
                    cursor.execute(
                        f"SELECT EVENT_ID, TIMER_WAIT, SQL_TEXT{''.join(', ' + c for c in columns)} "
                        f"FROM performance_schema.{_HISTORY} WHERE THREAD_ID = %s "
                        "ORDER BY EVENT_ID DESC LIMIT 1",
                        (self.thread_id,),
                    )
                    row = cursor.fetchone()
                    rows: list[tuple[object, ...]] = []
                else:  # with its stage rows, each marked 0 (the statement) or 1 (a stage)
                    cursor.execute(
                        stage_events.history_query(columns), (self.thread_id, self.thread_id, self.event_id)
                    )
                    rows = [tuple(one) for one in cursor.fetchall()]
                    row = next((one[1:] for one in rows if int(str(one[0])) == 0), None)
            self.reads += 1
            if row is not None and int(row[0]) > self.event_id and _is(row[2], sql) and row[1] is not None:
                self.event_id = int(row[0])
                seconds = int(row[1]) / PICOSECONDS
                counters = event_counters(columns, tuple(row[3:]))
                found = None
                if size is not None:
                    own = [(one[3], one[2]) for one in rows if int(str(one[0])) == 1 and one[1] == row[0]]
                    found = stage_events.run_stages(own, seconds, size, counters.get("cpu_time_s"))
                return StatementEvent(seconds, counters, found)
            if time.monotonic() >= deadline:
                return None
            time.sleep(EVENT_POLL_S)


# Whether the long history is kept (its consumer on) and its size (one row)
_LONG_STATUS_QUERY = (
    "SELECT (SELECT COUNT(*) FROM performance_schema.setup_consumers WHERE ENABLED = 'YES' AND "
    f"NAME = '{_HISTORY_LONG}'), @@performance_schema_events_statements_history_long_size"
)


def _is(text: object, sql: str) -> bool:
    """Whether a history row's SQL_TEXT is the statement `sql` (its first _TEXT_CHECKED characters)."""
    return str(text or "").strip().startswith(sql.strip()[:_TEXT_CHECKED])


def server_clock(admin: ServerConnection, session: ServerConnection) -> ServerClock | None:
    """The server clock of `session` read on `admin` (both on one server), or None when the server
    has performance_schema OFF or the admin cannot read it. Turns the statements-history consumer on
    (MySQL's default; MariaDB's is off)."""
    try:
        with admin.cursor() as cursor:
            cursor.execute("SELECT @@performance_schema")
            row = cursor.fetchone()
            if not row or not int(row[0]):
                return None
            cursor.execute(
                "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' "
                "WHERE NAME IN ('events_statements_current', %s, %s)",
                (_HISTORY, _HISTORY_LONG),
            )
            cursor.execute(
                "SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = %s",
                (int(session.thread_id()),),  # type: ignore[no-untyped-call]
            )
            found = cursor.fetchone()
    except pymysql.MySQLError:
        return None
    if not found:
        return None
    clock = ServerClock(admin, int(found[0]))
    with session.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchall()
    return clock if clock.last("SELECT 1") is not None else None


def clock_options(kind: str, stages: bool = True) -> list[str]:
    """CLOCK_OPTIONS for an instance of provisioner kind `kind` the lab starts (without the stage
    lines, stage_events.STAGE_OPTIONS, when `stages` is False: settings `replay_stages` off); [] for
    an existing server (the lab starts nothing there: its clock is the server's only if its own
    configuration has performance_schema ON)."""
    if kind == "existing":
        return []
    return [line for line in CLOCK_OPTIONS if stages or line not in stage_events.STAGE_OPTIONS]


def pair_clock(baseline: Clock, variant: Clock) -> Clock:
    """The clock a ratio variant / baseline is read on: "server" when both were timed by it, else
    "client" on both sides (every timed run also records the client's time: a ratio of server time
    to client time would mean nothing)."""
    return "server" if baseline == variant == "server" else "client"


@dataclass
class StageSpread:
    """Which runs of a pass read their stages (stage_events.py): `runs` of them spread over the pass
    (None: every run), a run being due when the pass's client time so far reached the next of `runs`
    even marks of its budget `budget_s` or its run count the next of `runs` even marks of
    `max_repeats`, whichever comes first: a 100 us statement (~200 runs a pass) reads every ~20th run,
    a 1 ms one (~20 runs) every other, a 5 ms one every run. A pass's first runs alone would not do:
    its first 10 runs' stages added up to 156 us for a statement whose median was 100 us
    (tests/replay/test_findings_on_servers.py; spread, within its bound): the runs right after a
    variant's turn begins are slower than the rest."""

    runs: int | None
    budget_s: float
    max_repeats: int
    next_s: float = 0.0
    next_run: int = 0

    def due(self, run: int, spent_s: float) -> bool:
        """Whether run number `run` (0-based), started after `spent_s` client seconds of the pass,
        reads its stages; moves the marks when it does."""
        if self.runs is None:
            return True
        if run < self.next_run and spent_s < self.next_s:
            return False
        self.next_s = spent_s + self.budget_s / self.runs
        self.next_run = run + max(1, self.max_repeats // self.runs)
        return True


@dataclass
class PassBudget:
    """What a pass has spent of its repetition budget, in seconds: the runs' client time (`add`),
    or with `wall` the wall clock (time.perf_counter) since the budget was made, the pass's first
    run (module constant BUDGET)."""

    wall: bool = False
    runs_s: float = 0.0
    started: float = field(default_factory=lambda: time.perf_counter())  # (read at the call: a test's fake)

    def add(self, elapsed: float) -> None:
        """Count a run's client seconds."""
        self.runs_s += elapsed

    def spent(self) -> float:
        """Seconds spent so far: the runs' (`add`), or the wall clock since the start with `wall`."""
        return time.perf_counter() - self.started if self.wall else self.runs_s


def timed_runs(
    statements: Statements,
    sql: str,
    clock: ServerClock | None,
    min_measured_s: float | None = None,
    max_repeats: int | None = None,
    client: list[float] | None = None,
    work: WorkTally | None = None,
    stages: list[RunStages] | None = None,
    stage_runs: int | None = None,
) -> list[float] | None:
    """Run `sql` until `min_measured_s` seconds were measured (the runs' client time, or the pass's
    wall clock where BUDGET is "wall": `PassBudget`) or `max_repeats` runs; the seconds of
    each run (server clock when `clock`; a run whose history row never came, ServerClock.last, counts
    the client's time, and so do the pass's runs after it). None: this module's MIN_MEASURED_S and
    MAX_REPEATS, read at the call (bench/replay_resolution.py sets them to time one run per pass).
    None when it errors; [math.inf] when a run timed out. StatementInterrupted passes through.
    client: when given, each run's client seconds are appended to it (a pair of variants timed by
    different clocks is compared on the client's, `pair_clock`); work: where each run's work counters
    are tallied (a run read by the client's clock has none); stages: when given, runs' stages are
    read with their history row and appended (measurement/stage_events.py; none where the server keeps
    no stage events or the run was read by the client's clock): `stage_runs` runs spread over the pass
    (`StageSpread`; None: every run's; settings `replay_stage_runs`)."""
    max_repeats = MAX_REPEATS if max_repeats is None else max_repeats
    min_measured_s = MIN_MEASURED_S if min_measured_s is None else min_measured_s
    spread = StageSpread(stage_runs, min_measured_s, max_repeats)
    if isinstance(clock, ServerClock) and BATCH_READS:  # (a test's stand-in clock reads run by run)
        clock.counter_columns()  # asks whether the long history is kept (`long_size`)
        if clock.long_size is not None:
            return _batched_runs(
                statements, sql, clock, min_measured_s, max_repeats, client, work, stages, spread
            )
    seconds: list[float] = []
    # once a pass only where no stored routine can make the session read-write between two runs
    prepared = READ_ONLY_EVERY == "pass" and not statements.routines
    if prepared:
        statements.prepare()
    # the client's seconds of the runs whatever the clock (module docstring), or the pass's wall (BUDGET)
    budget = PassBudget(BUDGET == "wall")
    while not seconds or (len(seconds) < max_repeats and budget.spent() < min_measured_s):
        before = budget.spent()
        try:
            # streamed and dropped: one row held at a time
            _, elapsed = statements.drain(sql, prepared=True) if prepared else statements.drain(sql)
        except pymysql.MySQLError:
            return None
        except StatementTimedOut:
            return [math.inf]
        budget.add(elapsed)
        if client is not None:
            client.append(elapsed)
        read_stages = stages is not None and spread.due(len(seconds), before)
        event = clock.last(sql, read_stages) if clock is not None else None
        if event is None:
            clock = None  # not in the history: the pass's other runs are not waited for either
        seconds.append(elapsed if event is None else event.seconds)
        if event is not None and work is not None:
            work.add(event.counters)
        if event is not None and event.stages is not None and stages is not None:
            stages.append(event.stages)
    return seconds


def _batched_runs(
    statements: Statements,
    sql: str,
    clock: ServerClock,
    min_measured_s: float,
    max_repeats: int,
    client: list[float] | None,
    work: WorkTally | None,
    stages: list[RunStages] | None,
    spread: StageSpread,
) -> list[float] | None:
    """timed_runs on a server keeping the long history (issue 51): the session prepared once
    (outcomes.Statements.prepare; before every run where READ_ONLY_EVERY is "run"), the runs back to
    back on the client's budget, then every run's row in one read (ServerClock.pass_events); a run
    due for its stages is read right after it (`last` with stages: only those, `stage_runs` a pass).
    Where the rows never all come, the pass's runs count the client's time (as timed_runs' run whose
    row never came)."""
    after = clock.event_id
    elapsed_runs: list[float] = []
    prepared = READ_ONLY_EVERY != "run" and not statements.routines
    if prepared:
        statements.prepare()
    budget = PassBudget(BUDGET == "wall")
    while not elapsed_runs or (len(elapsed_runs) < max_repeats and budget.spent() < min_measured_s):
        before = budget.spent()
        try:
            _, elapsed = statements.drain(sql, prepared=True) if prepared else statements.drain(sql)
        except pymysql.MySQLError:
            return None
        except StatementTimedOut:
            return [math.inf]
        budget.add(elapsed)
        elapsed_runs.append(elapsed)
        if stages is not None and clock.stage_size is not None and spread.due(len(elapsed_runs) - 1, before):
            event = clock.last(sql, True)
            if event is not None and event.stages is not None:
                stages.append(event.stages)
    if client is not None:
        client.extend(elapsed_runs)
    events = clock.pass_events(sql, len(elapsed_runs), after)
    if events is None:
        return elapsed_runs
    if work is not None:
        for event in events:
            work.add(event.counters)
    return [event.seconds for event in events]


def pass_value(runs: list[float] | None) -> float | None:
    """A pass's value: the median of its runs (math.inf when one timed out; None when it errored)."""
    if runs is None:
        return None
    return math.inf if math.inf in runs else float(statistics.median(runs))
