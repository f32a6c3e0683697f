"""What an executor tells the execution layer about its kind of job (a run, a replay): a `JobKind`,
used by the lifecycle (execution/lifecycle.py) and, once registered, by the reaper
(execution/reaper.py). The execution layer knows a job only through it."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from upgradelab.execution.leases import LeaseKind
from upgradelab.targets.models import Target


@dataclass
class Ending:
    """How a job ends: its final `status`, the `error` shown with it, whether its schedule went to
    its end (`completed`), the `reason` its unfinished parts fail with (None: the kind's own words),
    whether the reaper ended it (`reaped`: its worker gone, or a cancel without a live lease) and
    `fields`: more final columns of the kind."""

    status: str
    error: str | None = None
    completed: bool = False
    reason: str | None = None
    reaped: bool = False
    fields: dict[str, Any] = field(default_factory=dict)


def _nothing(*_: Any) -> None:
    return None


@dataclass(frozen=True)
class JobKind:
    """One kind of job, as its executor defines it (run_executor/jobs.py, replay/jobs.py).

    lease: the table and statuses (execution/leases.py); succeeded / failed: its statuses for a job
    that went to its end / that broke (a worker gone: failed, "worker lost");
    targets_of(job_id): the job's targets as stored (whose servers the reaper stops, locks it frees);
    final_fields(ending): the row's final columns (status, error, the end time, ...);
    on_end(job_id, ending): the run-end hook, called while the job is still held, before its final
    status is written (a run: its variants finished, its summary stored);
    published(job_id, fields): after the final status was written (a run's stream);
    sweep: a job that did not succeed stops every instance of its targets (stop_all), not only the
    ones it knows it started (a replay: its cancel may stop servers still starting).
    """

    lease: LeaseKind
    succeeded: str
    failed: str
    targets_of: Callable[[int], list[Target]]
    final_fields: Callable[[Ending], dict[str, Any]]
    on_end: Callable[[int, Ending], None] = _nothing
    published: Callable[[int, dict[str, Any]], None] = _nothing
    sweep: bool = False

    @property
    def name(self) -> str:
        """The kind's name ("run", "replay"): its lease's, its locks' holder."""
        return self.lease.name
