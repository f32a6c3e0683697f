"""The workload interface: set-up, one timed iteration, tear-down, on one open connection."""

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from upgradelab.targets.provisioners.base import ServerConnection


@dataclass(frozen=True)
class StatementTiming:
    """One statement of an iteration: label ("TRUNCATE test3") and client-side seconds (perf_counter)."""

    statement: str
    elapsed_s: float


@dataclass(frozen=True)
class WorkloadInfo:
    """What the UI and CLI show of a workload."""

    slug: str
    title: str
    article: str
    description: str
    default_iterations: int
    server_options: dict[str, str | None] = field(default_factory=dict)


class Workload(Protocol):
    """A workload template. Implementations live one per module in this folder."""

    info: ClassVar[WorkloadInfo]

    def setup(self, connection: ServerConnection) -> None:
        """Create the schema (untimed)."""

    def iteration(self, connection: ServerConnection, number: int) -> list[StatementTiming]:
        """Run iteration `number` (1-based); return each statement's timing in execution order."""

    def teardown(self, connection: ServerConnection) -> None:
        """Drop what setup made (untimed)."""


def timed(connection: ServerConnection, label: str, sql: str, args: Any = None) -> StatementTiming:
    """Execute one statement and time it: seconds, float, perf_counter around execute + fetch."""
    with connection.cursor() as cursor:
        started = time.perf_counter()
        cursor.execute(sql, args)
        cursor.fetchall()
        return StatementTiming(label, time.perf_counter() - started)
