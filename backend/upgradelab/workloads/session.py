"""The server a workload runs on (ServerSession: the harness connection, the endpoint, the
target's facts) and the progress a dataset's preparation reports."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from upgradelab.targets.provisioners.base import Endpoint, ServerConnection
from upgradelab.targets.workload_user import workload_endpoint


@dataclass(frozen=True)
class TargetFacts:
    """What a workload may ask of a target: flavor ("mysql" | "mariadb"), SELECT VERSION(), disposable."""

    name: str
    flavor: str
    version: str
    disposable: bool = False


@dataclass(frozen=True)
class DatasetProgress:
    """Dataset preparation progress: rows and bytes written so far, elapsed and estimated seconds."""

    phase: str
    rows: int
    rows_total: int
    bytes: int
    elapsed_s: float
    estimate_s: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "rows": self.rows,
            "rows_total": self.rows_total,
            "bytes": self.bytes,
            "elapsed_s": round(self.elapsed_s, 3),
            "estimate_s": None if self.estimate_s is None else round(self.estimate_s, 3),
        }


@dataclass
class ServerSession:
    """The server a workload runs on. The runner replaces `connection` after every restart.

    `connection` is the harness's (the lab user: settings, probes, datasets); SQL the lab did not
    write runs on `workload_connect()`, as the least-privileged workload user."""

    connection: ServerConnection
    endpoint: Endpoint
    target: TargetFacts
    report: Callable[[DatasetProgress], None] = lambda progress: None

    def workload_connect(self, database: str | None = None) -> ServerConnection:
        """A new connection as the workload user (targets/workload_user.py: ALL on `lab_%` databases
        only), made or re-keyed through the harness connection. pymysql errors as the server gives."""
        return workload_endpoint(self.connection, self.endpoint).connect(database=database)
