"""ProbeSet: every probe around every iteration, on a connection apart from the workload's."""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pymysql

from upgradelab.probes.base import Measurement, Probe, ProbeUnavailable, fetch_all
from upgradelab.probes.buffer_pool import BufferPoolProbe
from upgradelab.probes.mutex_waits import PATTERN, MutexWaitsProbe
from upgradelab.probes.statement_time import StatementTimeProbe
from upgradelab.targets.provisioners.base import Endpoint, ServerConnection


def startup_options(flavor: str) -> dict[str, str | None]:
    """Option-file options the probes need: performance_schema on (MariaDB 10.11 has it OFF by
    default), the InnoDB mutex instruments enabled and timed, and the waits consumer on.

    They go before the workload's and the variant's options, so a variant can still turn
    performance_schema off (its probes are then reported unavailable). `flavor` is "mysql"/"mariadb";
    both take the same names.
    """
    del flavor  # same option names on MySQL 8.0+/9.x and MariaDB 10.5+
    return {
        "performance_schema": "ON",
        "performance-schema-instrument": f"{PATTERN}=ON",
        "performance-schema-consumer-events-waits-current": "ON",
    }


@dataclass
class Measured:
    """What the probes measured around one iteration (filled when the `with` block ends)."""

    iteration: int
    measurements: list[Measurement] = field(default_factory=list)


class ProbeSet:
    """Opens its own connection to the server and reads every available probe around iterations.

    Use: `probes = ProbeSet.open(endpoint, workload_connection)`, then `probes.unavailable` (probe name
    -> reason), `with probes.around(n) as measured: ...`, `probes.close()`.
    """

    def __init__(self, connection: ServerConnection, probes: list[Probe], unavailable: dict[str, str]):
        self.connection = connection
        self.probes = probes
        self.unavailable = unavailable
        self._last: list[Any] | None = None  # the last iteration's after-readings

    @classmethod
    def open(
        cls, endpoint: Endpoint, workload_connection: ServerConnection, probes: list[Probe] | None = None
    ) -> "ProbeSet":
        """Connect, find the workload connection's THREAD_ID, and check each probe.

        Probes the server cannot give are left out and named in `unavailable` with the reason.
        """
        connection = endpoint.connect()
        thread_id = workload_thread_id(connection, workload_connection)
        available: list[Probe] = []
        unavailable: dict[str, str] = {}
        for probe in probes if probes is not None else default_probes():
            try:
                probe.check(connection, thread_id)
                available.append(probe)
            except ProbeUnavailable as reason:
                unavailable[probe.name] = str(reason)
        return cls(connection, available, unavailable)

    @contextmanager
    def around(
        self, iteration: int, *, after_previous: bool = False, block_end: bool = True
    ) -> Iterator[Measured]:
        """Read every probe before the block and after it; `measured.measurements` holds the deltas.

        after_previous: the previous iteration's after-readings are this one's before-readings (one
        reading per iteration instead of two). Only for consecutive iterations of one block, where
        nothing runs on the server between the two: the run loop hands the iteration to a writer
        thread and goes on. Nothing is read, and nothing is carried, if the block raises.

        block_end: whether this iteration ends its block. A probe of cadence "block" (mutex waits: a
        reading costs ~3-5 ms on MySQL 9.7, a tenth of a 35 ms iteration) is read only at a block's
        start and end: before block_end its block-start reading is carried on and it gives nothing;
        at block_end it gives the whole block's delta, stored with that iteration. A block cut short
        (a cancel between two iterations) leaves that partial block out of the probe's sums.
        """
        carried, self._last = self._last, None
        before: list[Any] = (
            carried
            if after_previous and carried is not None
            else [probe.read(self.connection) for probe in self.probes]
        )
        measured = Measured(iteration)
        yield measured
        after: list[Any] = []
        for probe, reading in zip(self.probes, before, strict=True):
            if probe.cadence == "block" and not block_end:
                after.append(reading)  # the block's start, carried to its end
                continue
            now = probe.read(self.connection)
            measured.measurements.extend(probe.delta(reading, now))
            after.append(now)
        self._last = after

    def close(self) -> None:
        """Close the probe connection."""
        self.connection.close()


def default_probes() -> list[Probe]:
    """Buffer pool counters, InnoDB mutex waits, server-side statement time."""
    return [BufferPoolProbe(), MutexWaitsProbe(), StatementTimeProbe()]


def workload_thread_id(
    probe_connection: ServerConnection, workload_connection: ServerConnection
) -> int | None:
    """performance_schema THREAD_ID of the workload connection (found by its CONNECTION_ID, i.e.
    PROCESSLIST_ID), read on the probe connection; None when performance_schema is off or absent."""
    try:
        rows = fetch_all(
            probe_connection,
            "SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = %s",
            (workload_connection.thread_id(),),  # type: ignore[no-untyped-call]
        )
    except pymysql.MySQLError:  # performance_schema absent: the probes' own checks give the reason
        return None
    return int(rows[0][0]) if rows else None
