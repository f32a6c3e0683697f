"""The probe interface: check once, read before and after an iteration, turn two readings into deltas."""

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from upgradelab.targets.provisioners.base import ServerConnection


class ProbeUnavailable(Exception):
    """The server cannot give this probe (performance_schema off, instrument absent); the message says why."""


@dataclass(frozen=True)
class Measurement:
    """One value of one iteration: probe name, metric, subject ('' or e.g. an instrument name), value.

    value None means "undefined for this iteration" (a hit rate with no read requests), never zero.
    """

    probe: str
    metric: str
    value: float | None
    subject: str = ""


class Probe(Protocol):
    """One probe. `check` raises ProbeUnavailable; `read` returns an opaque reading; `delta` compares two.

    `cadence` "iteration": read around every iteration (its deltas are per iteration); "block": read
    at the start and the end of a block only, its delta (the whole block's) stored with the block's
    last iteration, for counters only ever summed over iterations and costly to read (ProbeSet.around).
    """

    name: ClassVar[str]
    cadence: ClassVar[str]

    def check(self, probe_connection: ServerConnection, workload_thread_id: int | None) -> None:
        """Raise ProbeUnavailable (with the reason) if this server cannot give the probe."""

    def read(self, probe_connection: ServerConnection) -> Any:
        """The probe's counters now, read on the probe's own connection."""

    def delta(self, before: Any, after: Any) -> list[Measurement]:
        """What changed between two readings: the iteration's measurements."""


def fetch_all(connection: ServerConnection, sql: str, args: Any = None) -> list[tuple[Any, ...]]:
    """Rows of one statement, as tuples."""
    with connection.cursor() as cursor:
        cursor.execute(sql, args)
        return list(cursor.fetchall())


def performance_schema_reason(connection: ServerConnection) -> str | None:
    """Why performance_schema cannot be read (None when it is ON)."""
    rows = fetch_all(connection, "SHOW GLOBAL VARIABLES LIKE 'performance_schema'")
    if not rows or str(rows[0][1]).upper() != "ON":
        value = rows[0][1] if rows else "absent"
        return f"performance_schema is {value} on this server"
    return None
