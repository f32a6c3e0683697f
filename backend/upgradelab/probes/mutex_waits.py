"""InnoDB mutex waits from performance_schema.events_waits_summary_global_by_event_name."""

from typing import ClassVar

from upgradelab.probes.base import Measurement, ProbeUnavailable, fetch_all, performance_schema_reason
from upgradelab.targets.provisioners.base import ServerConnection

PATTERN = "wait/synch/mutex/innodb/%"
PICOSECONDS_PER_MS = 1e9


class MutexWaitsProbe:
    """Per-instrument deltas of COUNT_STAR and SUM_TIMER_WAIT for wait/synch/mutex/innodb/%.

    Metrics (probe "mutex_waits", subject = EVENT_NAME): count (waits) and wait_ms (SUM_TIMER_WAIT
    picoseconds / 1e9). Only instruments that changed are reported. Server-wide. Needs
    performance_schema=ON and the instruments enabled and timed at start (see startup_options).

    Read per block (cadence "block"): the delta covers the block's iterations and is stored with its
    last one. A reading costs ~3-5 ms on MySQL 9.7 (the summary sums ~2,400 mutex instances at every
    read), a tenth of article 001's iteration, and mutex waits are only ever shown summed over a
    variant's iterations (probes/service.py), which a block's delta keeps exactly.
    """

    name: ClassVar[str] = "mutex_waits"
    cadence: ClassVar[str] = "block"

    def check(self, probe_connection: ServerConnection, workload_thread_id: int | None) -> None:
        """Raise ProbeUnavailable when performance_schema is off or no such instrument is enabled+timed."""
        reason = performance_schema_reason(probe_connection)
        if reason:
            raise ProbeUnavailable(reason)
        [(total, enabled)] = fetch_all(
            probe_connection,
            "SELECT COUNT(*), COALESCE(SUM(ENABLED = 'YES' AND TIMED = 'YES'), 0) "
            "FROM performance_schema.setup_instruments WHERE NAME LIKE %s",
            (PATTERN,),
        )
        if not total:
            raise ProbeUnavailable(f"this server has no {PATTERN} instruments")
        if not enabled:
            raise ProbeUnavailable(f"none of the {total} {PATTERN} instruments is enabled and timed")

    def read(self, probe_connection: ServerConnection) -> dict[str, tuple[int, int]]:
        """EVENT_NAME -> (COUNT_STAR, SUM_TIMER_WAIT picoseconds)."""
        rows = fetch_all(
            probe_connection,
            "SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT "
            "FROM performance_schema.events_waits_summary_global_by_event_name WHERE EVENT_NAME LIKE %s",
            (PATTERN,),
        )
        return {str(name): (int(count), int(timer)) for name, count, timer in rows}

    def delta(
        self, before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]
    ) -> list[Measurement]:
        """count and wait_ms per instrument whose COUNT_STAR or SUM_TIMER_WAIT grew."""
        measured = []
        for event, (count, timer) in sorted(after.items()):
            count_before, timer_before = before.get(event, (0, 0))
            if count == count_before and timer == timer_before:
                continue
            measured.append(Measurement(self.name, "count", float(count - count_before), event))
            measured.append(
                Measurement(self.name, "wait_ms", (timer - timer_before) / PICOSECONDS_PER_MS, event)
            )
        return measured
