"""Stage events: where a statement's time went, read with the statement's own row of the history.

Source: performance_schema.events_stages_history, each thread's latest stage events; a stage of a
statement carries the statement's EVENT_ID in NESTING_EVENT_ID (NESTING_EVENT_TYPE 'STATEMENT').
Every instance the lab starts for a replay has the stage instruments enabled and timed and the stage
consumers on (STAGE_OPTIONS, beside timing.py's CLOCK_OPTIONS), each thread's history holding
HISTORY_SIZE stages: the default, 10, holds fewer than one SELECT goes through (MySQL 9.7 18-19
stages for a GROUP BY, MariaDB 10.11 about 27). An existing server is not changed: its stages are read
where its own configuration keeps them (`STATUS_QUERY`: the stage consumers on, stage instruments
timed), and not otherwise, said in the report.

Read with the statement's row in one query (timing.py ServerClock.last, `history_query`: the newest
statement row UNION ALL the thread's stage rows newer than the statement read before): no round trip
more per run; by 10 runs spread over each pass (settings `replay_stage_runs`, timing.py StageSpread; 0:
every run): measured on one CPU, a read with stages took 0.44-0.58 ms against 0.17-0.20 ms without (the
stage history's scan; a GROUP_CONCAT of the rows or a second statement in the packet cost the same), and
the statement after it ran 20-30 us longer (the client's clock), so reading every run of a fast
statement's 100-200 a pass made a replay 1.36-1.44x slower, 10 a pass 1.08x (bench/README.md,
replay_stage_cost.py). Per run (`run_stages`): the seconds per stage, a stage entered more than once
summed (MariaDB's "query end", "closing tables"), the statement's TIMER_WAIT that its stages do not
cover as OUTSIDE (measured by hand: MariaDB 10.11's stages cover ~70-75 % of a SELECT's TIMER_WAIT,
MySQL 9.7's ~100 %), and CPU (MySQL's CPU_TIME, measurement/counters.py) where the server has it. A run whose
stages filled the history (`full`) may have lost its earliest ones: counted as incomplete.

Per pass a stage's value is its mean over the middle half of the pass's runs ranked by their time
(`middle`): means add up, so a pass's stages (OUTSIDE included) sum to the mean TIMER_WAIT of those
runs, near the pass's median time, and the report's stages read as a partition of the query's time;
and the slowest and fastest quarters are left out, as a median leaves them. Measured on the lab's
servers (a loaded host): per-stage medians summed to 84-86 % of the median time (each stage's skew
apart), per-stage means over every run to 120-160 % of it (a few runs 10x slower in "freeing items" or
outside any stage). Memory: per statement and variant a StageTally keeps one value per stage per
timed pass (float32), as `times` keeps the pass's time: never a row per run.
"""

import math
import statistics
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

HISTORY = "events_stages_history"
HISTORY_SIZE = 64
# Option-file lines of every instance the lab starts for a replay (timing.py CLOCK_OPTIONS); the names
# are the same on MySQL 8.0+/9.x and MariaDB 10.5+. "ON" enables and times the instruments.
STAGE_OPTIONS = (
    "performance-schema-instrument=stage/%=ON",
    "performance-schema-consumer-events-stages-current=ON",
    f"performance-schema-consumer-{HISTORY.replace('_', '-')}=ON",
    f"performance_schema_events_stages_history_size={HISTORY_SIZE}",
)
OUTSIDE = "outside any stage"
CPU = "CPU time"
PICOSECONDS = 1e12
# Whether the server keeps stage events a run's read can find: both stage consumers on, some stage
# instrument timed, and the per-thread history's size (one row).
STATUS_QUERY = (
    "SELECT (SELECT COUNT(*) FROM performance_schema.setup_consumers WHERE ENABLED = 'YES' AND NAME IN "
    f"('events_stages_current', '{HISTORY}')), (SELECT COUNT(*) FROM performance_schema.setup_instruments "
    "WHERE NAME LIKE 'stage/sql/%' AND ENABLED = 'YES' AND TIMED = 'YES'), "
    "@@performance_schema_events_stages_history_size"
)


def history_size(consumers: object, timed: object, size: object) -> int | None:
    """The per-thread stage history's size when the server keeps the stage events a run's read finds
    (STATUS_QUERY's row: both consumers on, some stage instrument timed), else None."""
    counts = [int(str(value or 0)) for value in (consumers, timed, size)]
    return counts[2] if counts[0] >= 2 and counts[1] > 0 and counts[2] > 0 else None


def history_query(columns: Sequence[str]) -> str:
    """One read of a run's statement row and stage rows (module docstring): rows of (0, EVENT_ID,
    TIMER_WAIT, SQL_TEXT, *columns) for the thread's newest statement and (1, NESTING_EVENT_ID,
    TIMER_WAIT, EVENT_NAME, NULL...) for its stages newer than an EVENT_ID; parameters (thread id,
    thread id, that EVENT_ID). `columns`: the statement history's counter columns (counters.py)."""
    extra = "".join(f", {column}" for column in columns)
    pad = ", NULL" * len(columns)
    return (
        f"(SELECT 0, EVENT_ID, TIMER_WAIT, SQL_TEXT{extra} FROM performance_schema.events_statements_history "
        "WHERE THREAD_ID = %s ORDER BY EVENT_ID DESC LIMIT 1) UNION ALL "
        f"(SELECT 1, NESTING_EVENT_ID, TIMER_WAIT, EVENT_NAME{pad} FROM performance_schema.{HISTORY} "
        "WHERE THREAD_ID = %s AND EVENT_ID > %s AND NESTING_EVENT_TYPE = 'STATEMENT')"
    )


def stage_name(event_name: str) -> str:
    """A stage as the report names it: the event's name after its last "/", lower-cased ("stage/sql/
    Sending data" -> "sending data"; MySQL and MariaDB differ in case only for the stages both have)."""
    return event_name.rsplit("/", 1)[-1].strip().lower()


@dataclass(frozen=True)
class RunStages:
    """One run's time by stage: {stage: seconds} (OUTSIDE included; CPU where the server has it) and
    whether its stages filled the history (`full`: the earliest may be missing)."""

    seconds: dict[str, float]
    full: bool = False


def run_stages(
    rows: Sequence[tuple[object, object]], timer_wait_s: float, size: int, cpu_s: float | None = None
) -> RunStages:
    """A run's RunStages from its stage rows (EVENT_NAME, TIMER_WAIT in picoseconds), the statement's
    TIMER_WAIT in seconds, the history's size and its CPU time in seconds (None: the server has none):
    a stage entered more than once summed, OUTSIDE what the stages do not cover (at least 0)."""
    seconds: dict[str, float] = {}
    for name, wait in rows:
        if wait is not None:
            stage = stage_name(str(name))
            seconds[stage] = seconds.get(stage, 0.0) + int(str(wait)) / PICOSECONDS
    seconds[OUTSIDE] = max(0.0, timer_wait_s - sum(seconds.values()))
    if cpu_s is not None:
        seconds[CPU] = cpu_s
    return RunStages(seconds, full=len(rows) >= size)


def middle(runs: Sequence[RunStages]) -> list[RunStages]:
    """The runs of a pass whose time (their stages' sum, OUTSIDE included, CPU not: the statement's
    TIMER_WAIT) ranks in the middle half: from the n // 4-th to the n - n // 4-th (all of 1-3 runs)."""
    ranked = sorted(runs, key=lambda run: sum(v for k, v in run.seconds.items() if k != CPU))
    cut = len(ranked) // 4
    return ranked[cut : len(ranked) - cut]


@dataclass
class StageTally:
    """One statement's stages on one variant, per timed pass (module docstring): `values` stage -> one
    value per pass (the mean of the pass's middle runs, `middle`, a run that did not enter it counting
    0; CPU: the mean of those that have it, NaN where none has), `read` per pass 1 when its stages were
    read (0: not timed, or no run's stages came), `executions` the runs read, `incomplete` those whose
    stages filled the history. Passes are in the order of the statement's `times` (a VariantReplay's),
    one entry each."""

    values: dict[str, array] = field(default_factory=dict)  # type: ignore[type-arg]
    read: array = field(default_factory=lambda: array("b"))  # type: ignore[type-arg]
    executions: int = 0
    incomplete: int = 0

    def __len__(self) -> int:
        return len(self.read)

    def add_pass(self, runs: Sequence[RunStages]) -> None:
        """One pass's entry from its runs' stages ([]: a pass without stages: not timed, or none read):
        each stage's mean over the middle half of the runs by their time (`middle`)."""
        passes = len(self.read)
        counted = middle(runs)
        names = {name for run in runs for name in run.seconds}
        for name in names:
            if name not in self.values:
                self.values[name] = array("f", [math.nan if name == CPU else 0.0] * passes)
        for name, column in self.values.items():
            if name == CPU:
                have = [run.seconds[CPU] for run in counted if CPU in run.seconds]
                column.append(statistics.fmean(have) if have else math.nan)
            else:
                column.append(
                    statistics.fmean(run.seconds.get(name, 0.0) for run in counted) if runs else 0.0
                )
        self.read.append(1 if runs else 0)
        self.executions += len(runs)
        self.incomplete += sum(run.full for run in runs)

    def value(self, name: str, index: int) -> float:
        """Stage `name`'s value in pass `index` (seconds; 0 for a stage never entered, NaN for CPU)."""
        column = self.values.get(name)
        if column is None:
            return math.nan if name == CPU else 0.0
        return float(column[index])

    def cut(self, passes: int) -> None:
        """Keep the first `passes` passes (an interrupted replay keeps the rounds every variant ended)."""
        del self.read[passes:]
        for column in self.values.values():
            del column[passes:]
