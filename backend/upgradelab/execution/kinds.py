"""What an executor tells the execution layer about its kind of job (a run, a replay): a `JobKind`,
used by the lifecycle (execution/lifecycle.py) and, once registered (job_kinds.py), by the reaper
(execution/reaper.py), the worker's Celery task (execution/task.py), the cancel watch
(execution/cancel.py) and the API's pools lookup. The execution layer knows a job only through it."""

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from redis import Redis
from sqlalchemy import select
from sqlalchemy.orm import Session

from upgradelab.db import sync_session, utcnow
from upgradelab.execution.leases import LeaseKind
from upgradelab.execution.status import JobStatus
from upgradelab.settings import Settings
from upgradelab.streaming.publisher import publish_status
from upgradelab.targets.models import Target

# A kind's runner (its runner.py `execute_<kind>`): the job `job_id` run to its final status through
# execution/lifecycle.py with this worker's Redis and settings; its final status, None when it was not
# queued (or someone else ended it); raises execution/locks.py TargetsBusy while a target is held.
Runner = Callable[[int, Redis, Settings], str | None]


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


def _never(_job_id: int) -> bool:
    return False


def job_targets(model: Any, job_id: int, names_of: Callable[[Any], Iterable[str]]) -> list[Target]:
    """The targets job `job_id`'s row (of table `model`) names (`names_of(row)`: a capture's target,
    a replay's variants' targets), detached from their session; none when the row is gone. A kind's
    `targets_of`."""
    with sync_session() as session:
        row = session.get(model, job_id)
        names = set(names_of(row)) if row is not None else set()
        targets = list(session.scalars(select(Target).where(Target.name.in_(names))))
        for target in targets:
            session.expunge(target)
    return targets


def write_unless_final(model: Any, job_id: int, fields: dict[str, Any]) -> str | None:
    """The one rule of every kind's state writer (replay/, fixsearch/, attribution/ state.py): set
    `fields` (columns of table `model`) on job `job_id` in one commit unless the row is gone or final
    (cancelled while queued, ended by the reaper or a cancel: its final state is never overwritten);
    the row's status after the write, None when nothing was written."""
    with sync_session() as session:
        row = session.get(model, job_id)
        if row is None or JobStatus(row.status).is_final:
            return None
        for key, value in fields.items():
            setattr(row, key, value)
        status = str(row.status)
        session.commit()
    return status


def finished_fields(ending: Ending) -> dict[str, Any]:
    """The final columns most kinds write: status, error, finished_at (now, UTC) and the ending's own
    `fields` (a capture's findings, a fix search's progress)."""
    return {
        "status": JobStatus(ending.status),
        "error": ending.error,
        "finished_at": utcnow(),
        **ending.fields,
    }


@dataclass(frozen=True)
class JobKind:
    """One kind of job, as its executor defines it (runs/executor/jobs.py, replay/jobs.py).

    lease: the table and statuses (execution/leases.py); succeeded / failed: its statuses for a job
    that went to its end / that broke (a worker gone: failed, "worker lost");
    targets_of(job_id): the job's targets as stored (whose servers the reaper stops, locks it frees);
    final_fields(ending): the row's final columns (status, error, the end time, ...);
    on_end(job_id, ending): the run-end hook, called while the job is still held, before its final
    status is written (a run: its variants finished, its summary stored);
    published(job_id, fields): after the final status was written (a run's stream);
    sweep: a job that did not succeed stops every instance of its targets (stop_all), not only the
    ones it knows it started (a replay: its cancel may stop servers still starting);
    ends_first(job_id): whether the reaper writes the job's final state before it stops its servers
    and frees its locks, not after (a sharded replay: its shards on other hosts stop once they see
    it final, meanwhile; default never);
    task: the Celery task's name (default "upgradelab.<name>.execute"; the older kinds keep the names
    their queued messages carry); time_limit_s: the task's soft time limit in seconds;
    runner: where the kind's `Runner` is, "package.module:function" (its runner module imports
    this kind, and the API, which never runs a job, must not load it); the worker's task
    (execution/task.py) imports it when the worker registers its tasks.
    published defaults to the final status event on the kind's own stream (streaming/publisher.py,
    stream `<name>:<id>`);
    label: the kind in words ("fix search": 404s, 403s; default its name); api_path: its resource's
    path, its id the last parameter ("/api/fixsearches/{search_id}"; a check's also names its
    capture: "/api/captures/{capture_id}/checks/{check_id}", matched against the row's capture_id);
    api_name: the stem of its operations' ids ("fix_search": fix_search_events). From these the API
    derives the kind's event stream route (api/job_routes.py); "" for a kind without one;
    api_module: the module of the kind's own routes ("package.module", its `router`, signed in, and
    an optional `public_router`), included by the API's app (main.py) for a kind registered at run
    time (tests/recipe/); the product's kinds' routers are named in main.py.
    workload(session, job_id): the job's measured workload for another kind to start from, a
    measurement/workload.py WorkloadSource (a replay's, read by a fix search through
    `measured_workload(session, "replay", id)`); None for a kind that provides none.
    """

    lease: LeaseKind
    succeeded: str
    failed: str
    targets_of: Callable[[int], list[Target]]
    final_fields: Callable[[Ending], dict[str, Any]] = finished_fields
    on_end: Callable[[int, Ending], None] = _nothing
    published: Callable[[int, dict[str, Any]], None] | None = None
    sweep: bool = False
    ends_first: Callable[[int], bool] = _never
    task: str = ""
    time_limit_s: int = 6 * 3600
    runner: str = ""
    label: str = ""
    api_path: str = ""
    api_name: str = ""
    api_module: str = ""
    workload: Callable[[Session, int], object] | None = None

    @property
    def name(self) -> str:
        """The kind's name ("run", "replay"): its lease's, its locks' holder."""
        return self.lease.name

    @property
    def title(self) -> str:
        """The kind in words ("fix search"), its name when no label was given."""
        return self.label or self.name

    @property
    def task_name(self) -> str:
        """The Celery task that executes a job of this kind (the API sends it, the worker runs it)."""
        return self.task or f"upgradelab.{self.name}.execute"

    def publish_end(self, job_id: int, fields: dict[str, Any]) -> None:
        """Tell the job's stream its final fields (`published`, or the kind's status event)."""
        if self.published is not None:
            self.published(job_id, fields)
        else:
            publish_status(job_id, fields, final=True, kind=self.name)

    def load_runner(self) -> Runner:
        """The kind's runner, imported from `runner`; ValueError naming the kind when it has none or
        it names no function."""
        module, _, function = self.runner.partition(":")
        found = getattr(importlib.import_module(module), function, None) if module and function else None
        if not callable(found):
            raise ValueError(f"job kind {self.name!r}: runner {self.runner!r} is not 'module:function'")
        return cast(Runner, found)
