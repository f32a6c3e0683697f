"""Work counters per execution: what the server did for a statement, beside how long it took.

Source: the statement's own row of performance_schema.events_statements_history, the row whose
TIMER_WAIT times it (timing.py ServerClock.last reads both in one query): ROWS_EXAMINED, ROWS_SENT,
CREATED_TMP_TABLES, CREATED_TMP_DISK_TABLES, SELECT_FULL_JOIN, SELECT_SCAN, SORT_ROWS,
SORT_MERGE_PASSES, NO_INDEX_USED, and CPU_TIME where the server has that column (MySQL 8.0.28+;
MariaDB has none): `history_columns` asks the server which it has. Only where the replay is timed by
the server's clock: with the client's (a server with performance_schema off) there is no row to read,
and the report says the counters are unavailable.

Memory: per statement and variant a `WorkTally` keeps, per counter, the executions counted, the
smallest, the largest and the sum (never a row per execution), whatever the number of runs.

Per fingerprint and variant (`fingerprint_work`): the statements of the fingerprint counted on every
variant that counted any (a statement refused, errored or timed out on one is left out on all, so
both sides count the same statements; a variant on the client's clock counted none and has no
counters), each statement's mean per execution summed: the work of one execution of the
fingerprint's sampled statements, as its time is their sum; low / high: the sums of their smallest /
largest (equal when every execution did the same work: the counters are deterministic for a plan and
data, CPU time excepted). A range low < high says a counter differed between executions.

A counter moved (`MOVED_FACTOR`, `Counter.minimum`) when, per execution, the larger mean is at least
1.5x the smaller (from 0: any), the difference is at least the counter's minimum (100 rows for a
row counter, 1 for a count of tables, joins, scans, passes) and the two ranges do not overlap. The
counters are deterministic, so a small factor is a real change; the minimum keeps 3 -> 7 rows
examined from naming a cause. CPU time is a time, measured like TIMER_WAIT: shown, never a cause.
"""

import math
from dataclasses import dataclass, field

from upgradelab.measurement.shapes import CounterChange, CounterRange, WorkCounters

PICOSECONDS = 1e12
MOVED_FACTOR = 1.5
HISTORY_TABLE = "events_statements_history"


@dataclass(frozen=True)
class Counter:
    """One counter: its events_statements_history column, its name in the report, how the report says
    it, the smallest change per execution that counts as moved, its unit scale (CPU_TIME is in
    picoseconds, reported in seconds) and whether it may name a cause (deterministic)."""

    column: str
    name: str
    label: str
    minimum: float
    scale: float = 1.0
    deterministic: bool = True


COUNTERS: tuple[Counter, ...] = (
    Counter("ROWS_EXAMINED", "rows_examined", "rows examined", 100),
    Counter("ROWS_SENT", "rows_sent", "rows sent", 100),
    Counter("CREATED_TMP_TABLES", "created_tmp_tables", "temporary tables", 1),
    Counter("CREATED_TMP_DISK_TABLES", "created_tmp_disk_tables", "temporary tables on disk", 1),
    Counter("SELECT_FULL_JOIN", "select_full_join", "full joins", 1),
    Counter("SELECT_SCAN", "select_scan", "full scans", 1),
    Counter("SORT_ROWS", "sort_rows", "sort rows", 100),
    Counter("SORT_MERGE_PASSES", "sort_merge_passes", "sort merge passes", 1),
    Counter("NO_INDEX_USED", "no_index_used", "no index used", 1),
    Counter("CPU_TIME", "cpu_time_s", "CPU time", math.inf, 1 / PICOSECONDS, deterministic=False),
)
BY_NAME = {counter.name: counter for counter in COUNTERS}
BY_COLUMN = {counter.column: counter for counter in COUNTERS}

WORK_TEXT = (
    "Work counters per execution from each timed run's own row of performance_schema."
    f"{HISTORY_TABLE} (the row TIMER_WAIT is read from); a counter moved when the larger mean is at "
    f"least {MOVED_FACTOR:g}x the smaller, by at least 100 rows (rows examined, sent, sorted) or 1 (tables, "
    "joins, scans, merge passes, no index used), their ranges apart; CPU time is shown, never a cause"
)
UNAVAILABLE_TEXT = (
    "Work counters unavailable: the replay was timed by the client clock (performance_schema off), so "
    "no statement event was read"
)


def work_text(clocks: dict[str, str]) -> str:
    """The report's sentence on the counters, from each variant's clock: WORK_TEXT, UNAVAILABLE_TEXT
    when no variant was timed by the server's clock, else WORK_TEXT and the variants without them."""
    without = [name for name, clock in clocks.items() if clock != "server"]
    if len(without) == len(clocks):
        return UNAVAILABLE_TEXT
    if without:
        return f"{WORK_TEXT}; unavailable on {', '.join(without)} (client clock: performance_schema off)"
    return WORK_TEXT


def history_columns(columns: list[str]) -> tuple[str, ...]:
    """The counter columns (COUNTERS order) among `columns`, the names events_statements_history has
    on a server (information_schema.COLUMNS; CPU_TIME on MySQL 8.0.28+ only)."""
    have = {column.upper() for column in columns}
    return tuple(counter.column for counter in COUNTERS if counter.column in have)


COLUMNS_QUERY = (
    "SELECT COLUMN_NAME FROM information_schema.COLUMNS "
    f"WHERE TABLE_SCHEMA = 'performance_schema' AND TABLE_NAME = '{HISTORY_TABLE}'"
)


def event_counters(columns: tuple[str, ...], values: tuple[object, ...]) -> dict[str, float]:
    """{counter name: value per the report's unit} of one history row's counter `values` (in
    `columns` order); a NULL is left out (MySQL leaves CPU_TIME NULL when its timing is off)."""
    out = {}
    for column, value in zip(columns, values, strict=True):
        if value is not None:
            counter = BY_COLUMN[column]
            out[counter.name] = float(value) * counter.scale  # type: ignore[arg-type]
    return out


@dataclass
class WorkTally:
    """One statement's counters on one variant over its counted runs: per counter name, the
    executions counted, the smallest, the largest and the sum (bounded memory, module docstring)."""

    count: dict[str, int] = field(default_factory=dict)
    low: dict[str, float] = field(default_factory=dict)
    high: dict[str, float] = field(default_factory=dict)
    total: dict[str, float] = field(default_factory=dict)

    def add(self, counters: dict[str, float]) -> None:
        for name, value in counters.items():
            self.count[name] = self.count.get(name, 0) + 1
            self.low[name] = min(self.low.get(name, value), value)
            self.high[name] = max(self.high.get(name, value), value)
            self.total[name] = self.total.get(name, 0.0) + value

    @property
    def executions(self) -> int:
        """Runs counted (the most of any counter: a NULL CPU_TIME leaves that one out)."""
        return max(self.count.values(), default=0)


def fingerprint_work(tallies: dict[str, list[WorkTally | None]]) -> dict[str, WorkCounters]:
    """Per variant (`tallies`: variant name -> the tallies of the fingerprint's statements, None where
    the variant kept none), the fingerprint's work per execution (module docstring); a variant that
    counted none of them has no entry; {} when no statement was counted on every variant that
    counted any (the client's clock, or every statement left out)."""
    tallies = {
        variant: one
        for variant, one in tallies.items()
        if any(tally is not None and tally.executions for tally in one)
    }
    if not tallies:
        return {}
    size = min(len(one) for one in tallies.values())
    common = [
        i
        for i in range(size)
        if all((tally := one[i]) is not None and tally.executions for one in tallies.values())
    ]
    if not common:
        return {}
    out = {}
    for variant, one in tallies.items():
        counted = [t for i in common if (t := one[i]) is not None]
        names = [c.name for c in COUNTERS if all(c.name in t.count for t in counted)]
        out[variant] = WorkCounters(
            statements=len(counted),
            executions=sum(t.executions for t in counted),
            counters={
                name: CounterRange(
                    mean=sum(t.total[name] / t.count[name] for t in counted),
                    low=sum(t.low[name] for t in counted),
                    high=sum(t.high[name] for t in counted),
                )
                for name in names
            },
        )
    return out


def columns(work: WorkCounters | None) -> dict[str, float | None]:
    """The flat spelling of a variant's work (CSV): `work_<name>` per counter in COUNTERS order, its
    mean per execution (None where the variant has no such counter or no counters)."""
    have = work.counters if work is not None else {}
    return {f"work_{c.name}": have[c.name].mean if c.name in have else None for c in COUNTERS}


def _number(counter: Counter, value: float) -> str:
    if counter.scale != 1.0:  # a time in seconds
        return f"{value * 1e3:.3g} ms" if value >= 1e-3 else f"{value * 1e6:.3g} us"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def range_text(counter: Counter, value: CounterRange) -> str:
    """A counter per execution as the report says it: "16,049", or "16,049-16,100" (low-high) when it
    differed between executions."""
    if value.low == value.high:
        return _number(counter, value.mean)
    return f"{_number(counter, value.low)}-{_number(counter, value.high)}"


def moved(counter: Counter, base: CounterRange, other: CounterRange) -> bool:
    """The counter moved between the baseline and a variant (module docstring's threshold)."""
    if not counter.deterministic:
        return False
    small, large = sorted((base.mean, other.mean))
    apart = other.low > base.high or other.high < base.low
    factor = large >= MOVED_FACTOR * small if small > 0 else large > 0
    return factor and large - small >= counter.minimum and apart


def change(name: str, base: CounterRange, other: CounterRange) -> CounterChange:
    """One counter against the baseline: "rows examined 16,049 -> 802,450, 50x" (fewer: "50x fewer";
    from 0: no factor), and whether it moved."""
    counter = BY_NAME[name]
    ratio = other.mean / base.mean if base.mean > 0 else None
    text = f"{counter.label} {range_text(counter, base)} -> {range_text(counter, other)}"
    if ratio is not None and other.mean > 0 and ratio != 1:
        fewer = "less" if counter.scale != 1.0 else "fewer"  # CPU time is an amount, the rest counts
        text += f", {ratio:.3g}x" if ratio > 1 else f", {1 / ratio:.3g}x {fewer}"
    return CounterChange(
        counter=name, label=counter.label, base=base, other=other, ratio=ratio,
        moved=moved(counter, base, other), text=text,
    )  # fmt: skip


def changes(work: dict[str, WorkCounters], baseline: str, variant: str) -> list[CounterChange]:
    """The counters that differ between the baseline and `variant` (COUNTERS order; an equal one is
    left out: its value is in the fingerprint's `work`); [] when either has no counters."""
    base, other = work.get(baseline), work.get(variant)
    if base is None or other is None:
        return []
    return [
        change(name, base.counters[name], other.counters[name])
        for name in BY_NAME
        if name in base.counters and name in other.counters and base.counters[name] != other.counters[name]
    ]
