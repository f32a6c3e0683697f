"""The workload interface: a template with a parameter schema, iteration groups and a dataset.

A run gives each variant a ServerSession (an open connection plus where the server answers and
what it is); the workload prepares its dataset once (reused when the datadir already holds one of
the same specification, see workloads/datasets.py), sets up, runs `iterations` timed iterations for
each of its groups (e.g. per table, per thread count) and tears down.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from upgradelab.targets.provisioners.base import Endpoint, ServerConnection
from upgradelab.targets.workload_user import workload_endpoint

Policy = Literal["warm", "cold_first", "cold_each_group", "cold_every"]
POLICIES: dict[str, str] = {
    "warm": "No restart: the server started for the variant serves every iteration.",
    "cold_first": "Restart (empty buffer pool) before the first iteration of each variant.",
    "cold_each_group": "Restart before the first iteration of each group (table, thread count).",
    "cold_every": "Restart before every iteration: every iteration is cold.",
}


@dataclass(frozen=True)
class StatementTiming:
    """One statement of an iteration: label ("TRUNCATE test3"), client-side seconds (perf_counter),
    and optional metrics measured with it (e.g. sysbench's {"tps", "qps", "p50_ms", ...})."""

    statement: str
    elapsed_s: float
    metrics: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class PublishedFigure:
    """One series the article published: `values` in `unit` at `points` (runs 1..n, thread counts)."""

    case: str
    unit: str
    points: list[str]
    values: list[float]


@dataclass(frozen=True)
class ArticleCase:
    """A case of the article that a variant reproduces: `point` names one of the first published
    figure's points (its value over the baseline point's is the article's ratio); the variant is the
    baseline's target with `preset`, or, with `other_target`, a server on another target (the
    article's other version) with the default preset."""

    point: str
    preset: str = "default"
    other_target: bool = False


@dataclass(frozen=True)
class PrimaryMetric:
    """What a verdict compares: `name` is "seconds" (the iteration's total, iteration.elapsed_s) or a key
    of iteration.metrics (sysbench "tps", "p95_ms"); `higher_is_better` gives the direction."""

    name: str
    unit: str
    higher_is_better: bool = False


SECONDS = PrimaryMetric("seconds", "s")


Scans = Literal["all", "first", "later"]


@dataclass(frozen=True)
class Side:
    """One side of a contrast: a group's iterations in each round, all of them or, for a cold-then-warm
    group, only the round's first iteration of that group ("first") or the rest ("later")."""

    group: str
    scans: Scans = "all"

    @property
    def label(self) -> str:
        name = self.group.split("=", 1)[-1] if self.scans != "all" else self.group
        return name if self.scans == "all" else f"{name} {self.scans}"


@dataclass(frozen=True)
class Contrast:
    """A named ratio inside one variant: the numerator side's round value over the denominator's, in
    `metric` (results/views/contrasts.py pairs them within each round). `name` is how article cases
    (ContrastCase.contrast) find it, e.g. "monitor=on / monitor=off"."""

    name: str
    numerator: Side
    denominator: Side
    metric: PrimaryMetric = SECONDS
    description: str = ""


@dataclass(frozen=True)
class ContrastCase:
    """What the article published for one contrast on one version (`label`, e.g. "8.0.32"): the
    numerator and denominator figures in `unit` (e.g. 468.702 s with the monitor, 28.763 s without);
    their ratio is set beside the latest run's contrast of the same name."""

    contrast: str
    label: str
    numerator: float
    denominator: float
    unit: str
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.numerator / self.denominator


@dataclass(frozen=True)
class WorkloadInfo:
    """What the UI and CLI show of a workload. `sweep` names the x axis of a sweep ("threads")."""

    slug: str
    title: str
    article: str
    description: str
    default_iterations: int
    server_options: dict[str, str | None] = field(default_factory=dict)
    setup: str = ""
    published: list[PublishedFigure] = field(default_factory=list)
    default_policy: Policy = "warm"
    sweep: str | None = None
    # Like with like on the template's page: the article's ratios to its baseline point beside the
    # latest run's (variant / the baseline target's default variant), per case.
    baseline_point: str | None = None
    cases: list[ArticleCase] = field(default_factory=list)
    # The article's own within-version ratios (monitor on / off, N threads / 1, first scan / later),
    # matched by name to the contrasts a run of the template computes (Workload.contrasts).
    contrast_cases: list[ContrastCase] = field(default_factory=list)


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


class NoParameters(BaseModel):
    """A template without parameters."""

    model_config = ConfigDict(extra="forbid")


class Workload:
    """Base of every template; subclasses live one per module in this folder."""

    info: ClassVar[WorkloadInfo]
    Parameters: ClassVar[type[BaseModel]] = NoParameters
    # Only reads (no CREATE, INSERT, DROP...): may run on a target not marked disposable.
    read_only: ClassVar[bool] = False
    # Creates its objects inside the lab's database (server.endpoint.database) when the target names
    # one (existing servers); templates that need databases of their own are refused there.
    uses_lab_database: ClassVar[bool] = False
    # Verdicts are on these (results/stats/verdicts.py); a fixed-duration template overrides: its
    # seconds are fixed.
    primary_metrics: ClassVar[tuple[PrimaryMetric, ...]] = (SECONDS,)

    def __init__(self, parameters: BaseModel | None = None) -> None:
        self.parameters = parameters if parameters is not None else self.Parameters()

    def server_options(self, target: TargetFacts) -> dict[str, str | None]:
        """Startup options the template needs on this target (before the variant's own)."""
        return dict(self.info.server_options)

    def refusal(self, target: TargetFacts) -> str | None:
        """Why this target cannot run the template with these parameters, or None."""
        return None

    def lab_database_refusal(self, database: str) -> str | None:
        """Why the parameters cannot work inside the lab's database `database`, or None."""
        del database
        return None

    def groups(self) -> list[str]:
        """Iteration groups in order, e.g. ["table=test_short", "table=test_long"]; [""] = one group."""
        return [""]

    def contrasts(self) -> list[Contrast]:
        """The within-variant ratios this template's article makes (between two of its groups, or a
        group's first and later iterations), for these parameters; [] = none."""
        return []

    def dataset_spec(self, server: ServerSession) -> dict[str, Any] | None:
        """What the prepared dataset depends on (hashed into upgradelab_meta.datasets), or None."""
        return None

    def prepare(self, server: ServerSession) -> None:
        """Build the dataset (untimed, progress through server.report)."""

    def setup(self, server: ServerSession) -> None:
        """Per-variant set-up after the dataset is there (untimed)."""

    def iteration(self, server: ServerSession, number: int, group: str) -> list[StatementTiming]:
        """Run iteration `number` (1-based over the variant) of `group`; each statement's timing."""
        raise NotImplementedError

    def teardown(self, server: ServerSession) -> None:
        """Drop what setup made (untimed); a prepared dataset stays for reuse."""


def timed(connection: ServerConnection, label: str, sql: str, args: Any = None) -> StatementTiming:
    """Execute one statement and time it: seconds, float, perf_counter around execute + fetch."""
    with connection.cursor() as cursor:
        started = time.perf_counter()
        cursor.execute(sql, args)
        cursor.fetchall()
        return StatementTiming(label, time.perf_counter() - started)


def execute(connection: ServerConnection, *statements: str) -> None:
    """Execute untimed statements in order."""
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)


def scalar(connection: ServerConnection, sql: str, column: int = 0) -> Any:
    """One column of the first row (None when there is no row)."""
    with connection.cursor() as cursor:
        cursor.execute(sql)
        row = cursor.fetchone()
    return row[column] if row else None
