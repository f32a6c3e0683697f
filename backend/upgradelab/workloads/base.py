"""The workload interface: a template with a parameter schema, iteration groups and a dataset.

A run gives each variant a ServerSession (an open connection plus where the server answers and
what it is); the workload prepares its dataset once (reused when the datadir already holds one of
the same specification, see workloads/datasets.py), sets up, runs `iterations` timed iterations for
each of its groups (e.g. per table, per thread count) and tears down.

Its parts, each a module: what a template says about itself (info.py: policies, article),
what it is compared in (contrasts.py), the server it runs on and dataset progress (session.py),
the SQL helpers (sql.py). Their names are importable from here too, as the code has imported them.
"""

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from upgradelab.workloads.contrasts import SECONDS, Contrast, PrimaryMetric, Scans, Side
from upgradelab.workloads.info import (
    POLICIES,
    ArticleCase,
    ContrastCase,
    Policy,
    PublishedFigure,
    WorkloadInfo,
)
from upgradelab.workloads.session import DatasetProgress, ServerSession, TargetFacts
from upgradelab.workloads.sql import StatementTiming, execute, scalar, timed


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


__all__ = [
    "POLICIES",
    "SECONDS",
    "ArticleCase",
    "Contrast",
    "ContrastCase",
    "DatasetProgress",
    "NoParameters",
    "Policy",
    "PrimaryMetric",
    "PublishedFigure",
    "Scans",
    "ServerSession",
    "Side",
    "StatementTiming",
    "TargetFacts",
    "Workload",
    "WorkloadInfo",
    "execute",
    "scalar",
    "timed",
]
