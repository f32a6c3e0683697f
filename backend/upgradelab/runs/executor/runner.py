"""Executes one run as one pass: plan -> instances -> for each round, for each variant in the round's
order: thaw, block, freeze -> record; then stop everything.

- lifecycle (execution/lifecycle.py): target locks, lease and heartbeat, the final state written on
  every exit path (runs/executor/jobs.py: the run's variants finished, its summary stored, then published)
- plan (execution/schedule.py): the experiment's schedule, stored in run.schedule before the first
  iteration
- instances (execution/instances.py): one server per variant (Slots), memory checked, started in
  parallel and frozen (`started`), context captured into run_variant, thawed for its blocks
  (`Fleet.block`), all stopped when the run ends
- blocks (runs/executor/blocks.py): the workload's iterations on one instance
- record (results/store/ingest.py): each iteration's row, statements and probe deltas, then the stream
- state (runs/executor/state.py): every write to the run and run_variant rows, one commit per step
- cancel (execution/cancel.py): a watch reads the run's cancel flag every 0.5 s (and an attribution's,
  for its step runs); once set it stops the run's servers (an existing server: KILL QUERY of the lab's
  statements), which ends a start, a data preparation or an iteration at once; what then fails is
  the cancel's doing, not the variant's: the run ends `cancelled`

A variant that is refused or breaks is marked failed on its run_variant row and drops out; the
others go on and the run ends failed naming it. The generic Celery task (execution/task.py) calls execute_run.

One concept: one run's pass, from its plan to its servers stopped; the helpers below are the steps of
that pass and share its loop state (_Loop), the blocks, context and state writes being modules of their own.
"""

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymysql
from redis import Redis
from sqlalchemy import select

from upgradelab.db import sync_session, utcnow
from upgradelab.execution.cancel import CancelWatch, interrupt_targets
from upgradelab.execution.instances import (
    Fleet,
    Instance,
    MemoryRefused,
    Slots,
    capture_context,
    check_memory,
    started,
)
from upgradelab.execution.kinds import Ending
from upgradelab.execution.leases import Lease, LeaseLost
from upgradelab.execution.lifecycle import execute
from upgradelab.execution.schedule import Budget, Schedule, Step, extensions, plan
from upgradelab.execution.status import JobStatus
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.probes.hooks import ATTACHED as PROBES
from upgradelab.probes.service import store_unavailable
from upgradelab.results.store.hooks import Place
from upgradelab.results.store.ingest import IterationWriter
from upgradelab.results.store.summary import undecided
from upgradelab.runs.executor import state
from upgradelab.runs.executor.blocks import (
    OpenVariant,
    VariantJob,
    close_variant,
    drop_variant,
    open_variant,
    reapply,
    run_block,
)
from upgradelab.runs.executor.context import run_context
from upgradelab.runs.executor.jobs import RUN_JOBS, started_runs_on
from upgradelab.runs.executor.preflight import VariantFailed, apply_variant, facts, refusal, server_options
from upgradelab.runs.executor.state import Change
from upgradelab.runs.experiments import is_aa_control
from upgradelab.runs.models import Experiment, Run, RunProgress, VariantStatus
from upgradelab.settings import Settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import Provisioner, ProvisionError
from upgradelab.workloads import WORKLOADS, ServerSession, Workload

log = logging.getLogger(__name__)
# seconds between two reads of the run's cancel flag by its watch (also read at every block's start)
CANCEL_POLL_S = 0.5

# What a broken server or template raises inside a block (ProvisionError, DatasetFailed and
# SysbenchError are RuntimeErrors); any of them fails that variant only.
_VARIANT_ERRORS = (pymysql.MySQLError, OSError, RuntimeError, VariantFailed)
GONE_WAIT_S = 2.0  # how long a lost connection waits to see whether the server process is gone


class RunCancelled(Exception):
    """The user asked to cancel; raised between iterations."""


@dataclass
class _Run:
    run_id: int
    experiment: Experiment
    workload: Workload
    variants: list[ResolvedVariant]
    targets: dict[str, Target]
    cancel: CancelWatch | None = None  # set while the run executes
    # every provisioner the run asked (a version read, a pre-flight start, its instances): what a
    # cancel stops through their own handles
    provisioners: list[Provisioner] = field(default_factory=list)

    @property
    def cancelled(self) -> bool:
        """Whether the cancel watch saw the flag: a step failing now is the cancel's doing."""
        return self.cancel is not None and self.cancel.requested


def execute_run(
    run_id: int, redis: Redis, settings: Settings, also_cancelled: Callable[[], bool] = lambda: False
) -> JobStatus | None:
    """Run `run_id` to a final status and return it; None if the run is no longer queued (or its
    lease was lost and the reaper or a cancel ended it). `also_cancelled()`: read beside the run's own
    cancel flag (an attribution's, for its step runs).

    Raises TargetsBusy (execution/locks.py; before touching the run) when a target is locked by
    another job, or when the database knows another started run on one (runs/executor/jobs.py).
    """
    run = _load(run_id)
    if run is None:
        return None
    status = execute(
        RUN_JOBS,
        run_id,
        list(run.targets.values()),
        redis,
        settings,
        lambda lease: _cancellable(run, settings, lease, also_cancelled),
        busy=lambda: bool(started_runs_on(run.targets, except_run=run_id)),
    )
    return None if status is None else JobStatus(status)


def _cancellable(run: _Run, settings: Settings, lease: Lease, also_cancelled: Callable[[], bool]) -> Ending:
    """_execute under the cancel watch (module docstring); a run the watch saw cancelled ends
    `cancelled` unless it succeeded meanwhile, with its servers stopped once more after the body (one
    a pre-flight or a start left)."""
    run_id = run.run_id
    targets = list(run.targets.values())
    what = f"run {run_id}"
    run.cancel = CancelWatch.of(
        RUN_JOBS,
        run_id,
        lambda: interrupt_targets(what, targets, settings, run.provisioners),
        CANCEL_POLL_S,
        also=also_cancelled,
    )
    with run.cancel:
        try:
            ending = _execute(run, settings, lease)
        except Exception:
            if not run.cancelled:
                raise
            log.info("%s: a step the cancel interrupted raised", what, exc_info=True)
            ending = Ending(JobStatus.failed)
    if run.cancelled and ending.status != JobStatus.succeeded:
        interrupt_targets(what, targets, settings, run.provisioners)
        ending = Ending(JobStatus.cancelled)
    return ending


def _execute(run: _Run, settings: Settings, lease: Lease) -> Ending:
    """plan -> instances -> rounds of blocks -> how the run ends (the lifecycle writes it while the
    lease holds; an unexpected exception it turns into `failed`)."""
    run_id = run.run_id
    failed: dict[int, str] = {}
    try:
        schedule = _plan(run, settings)
        instances = _instances(run, settings, failed)
        lease.check()
        _raise_if_cancelled(run_id)
        opened: dict[int, OpenVariant] = {}
        # Iterations are stored off the timed loop, in batches (results/store/ingest.py); the writer
        # has stored every one before the lifecycle stores the run's summary.
        with _started(run, instances, opened, failed) as fleet, IterationWriter() as writer:
            loop = _Loop(run, fleet, writer, failed, lease.check)
            try:
                state.write(run_id, Change().run(status=JobStatus.running))
                begun = time.monotonic()
                for step in schedule.steps(run.workload.groups()):
                    if step.variant_index in opened and step.variant_index not in failed:
                        _block(loop, opened[step.variant_index], step)
                _extend(loop, schedule, begun, opened)
            except LeaseLost:
                writer.discard()  # the reaper or a cancel ended the run: nothing more is written
                raise
            for index, variant in opened.items():
                if index not in failed:
                    _guarded(run, variant, failed, lambda one: _close(fleet, one))
        status = JobStatus.failed if failed else JobStatus.succeeded
        error = "; ".join(failed[i] for i in sorted(failed)) or None
        return Ending(status, error, completed=True)
    except RunCancelled:
        return Ending(JobStatus.cancelled)
    except LeaseLost:
        log.warning("run %s: lease lost, stopping", run_id)
        return Ending(JobStatus.failed)
    except (MemoryRefused, ProvisionError) as refused:
        return Ending(JobStatus.failed, str(refused))


def _load(run_id: int) -> _Run | None:
    with sync_session() as session:
        row = session.get(Run, run_id)
        if row is None or row.status != JobStatus.queued:
            return None
        experiment = row.experiment
        variants = list(experiment.variants)
        names = {variant.target for variant in variants}
        targets = {t.name: t for t in session.scalars(select(Target).where(Target.name.in_(names)))}
        workload_type = WORKLOADS[experiment.workload]
        workload = workload_type(workload_type.Parameters.model_validate(experiment.parameters or {}))
        return _Run(run_id, experiment, workload, variants, targets)


def _plan(run: _Run, settings: Settings) -> Schedule:
    """The schedule and the host facts, stored before anything starts, with the run_variant rows."""
    experiment = run.experiment
    seed = experiment.seed if experiment.seed is not None else run.run_id
    schedule = plan(experiment.schedule, experiment.rounds, experiment.block, seed, len(run.variants))
    variants = [(v.name, v.target, is_aa_control(experiment, i)) for i, v in enumerate(run.variants)]
    change = Change().run(schedule=schedule.as_json(), context=run_context(Path(settings.server_dir)))
    state.write(run.run_id, change.add_variants(variants))
    return schedule


def _extend(loop: "_Loop", schedule: Schedule, begun: float, opened: dict[int, OpenVariant]) -> None:
    """Auto-extension (experiment.max_rounds): EXTENSION_STEP more rounds while a verdict is open (on
    every iteration so far: the writer is flushed first) and the budget allows; the added rounds'
    order is stored in run.schedule before their first block."""
    run, failed = loop.run, loop.failed
    experiment = run.experiment
    if experiment.max_rounds is None or schedule.kind != "interleaved":
        return
    budget = Budget(experiment.max_rounds, experiment.max_minutes, begun)
    done = schedule.rounds

    def open_verdict() -> bool:
        loop.writer.flush()
        return undecided(run.run_id, set(failed))

    for longer in extensions(schedule, budget, open_verdict):
        state.write(run.run_id, Change().run(schedule=longer.as_json()))
        for step in longer.after(done, run.workload.groups()):
            if step.variant_index in opened and step.variant_index not in failed:
                _block(loop, opened[step.variant_index], step)
        done = longer.rounds


def _fail(change: Change, failed: dict[int, str], index: int, reason: str) -> Change:
    """Variant `index` drops out with `reason`: noted in `failed` and in the change (written by the
    caller with the rest of its step)."""
    failed[index] = reason
    return change.variant(index, status=VariantStatus.failed, error=reason, finished_at=utcnow())


def _instances(run: _Run, settings: Settings, failed: dict[int, str]) -> list[Instance]:
    """Pre-flight every variant (a refusal fails that variant), then one Instance per variant that
    passed (execution/instances.py Slots: slots 0, 1, ... per target, or one shared instance for a
    kind without `instances`). Refuses the whole run (MemoryRefused) when their memory exceeds
    MemAvailable. The failures and the versions read are written in one step."""
    slots = Slots(settings)
    change = Change()
    for index, variant in enumerate(run.variants):
        target = run.targets.get(variant.target)
        if target is None:
            _fail(
                change, failed, index, f"variant {variant.name!r}: target {variant.target!r} does not exist"
            )
            continue
        provisioner = slots.provisioner(target)
        if all(provisioner is not known for known in run.provisioners):
            run.provisioners.append(provisioner)
        if target.version is None:
            target.version = provisioner.server_version()
            change.version(target.name, target.version)
        reason = refusal(run.workload, variant, target, provisioner, run.experiment.policy)
        if reason:
            _fail(change, failed, index, reason)
            continue
        slots.keep(target, provisioner, server_options(run.workload, target, variant), index)
    state.write(run.run_id, change)
    check_memory([i.options for i in slots.instances], settings.instance_allowance_mb)
    return slots.instances


def _job(run: _Run, index: int) -> VariantJob:
    variant = run.variants[index]
    target = run.targets[variant.target]

    def apply(server: ServerSession) -> None:
        apply_variant(server.connection, variant)

    return VariantJob(
        index,
        variant.name,
        run.workload,
        run.experiment.policy,
        server_options(run.workload, target, variant),
        facts(target),
        apply,
        variant.redo_log,
    )


@contextmanager
def _started(
    run: _Run, instances: list[Instance], opened: dict[int, OpenVariant], failed: dict[int, str]
) -> Iterator[Fleet]:
    """Every instance started at once and frozen (execution/instances.py `started`), its variants
    opened into `opened`; a variant whose server does not start is failed. Each started variant's
    context goes to its run_variant row. Every instance is stopped when the block exits."""

    def progress(value: dict[str, Any] | None) -> None:
        stored = None if value is None else RunProgress.model_validate(value)
        state.write(run.run_id, Change().run(progress=stored))

    def start(instance: Instance) -> bool:
        first, *sharing = instance.variants
        state.write(run.run_id, Change().variant(first, status=VariantStatus.running, started_at=utcnow()))
        try:
            opened[first] = open_variant(
                _job(run, first),
                instance.provisioner,
                progress,
            )
        except _VARIANT_ERRORS as error:
            instance.provisioner.stop()
            if run.cancelled:  # the cancel stopped the server: nothing the variant did
                return False
            reason = f"variant {run.variants[first].name!r}: server did not start: {error}"
            state.write(run.run_id, _fail(Change(), failed, first, reason))
            return False
        store_unavailable(run.run_id, first, opened[first].probes.unavailable)
        context = capture_context(instance.provisioner, opened[first].server.connection)
        change = Change().version(run.variants[first].target, context["version"])
        for index in instance.variants:
            change.variant(index, **context)
        for index in sharing:  # a shared server: the other variants connect to it
            change.variant(index, status=VariantStatus.running, started_at=utcnow())
        state.write(run.run_id, change)
        for index in sharing:
            opened[index] = open_variant(_job(run, index), instance.provisioner, lambda p: None)
            store_unavailable(run.run_id, index, opened[index].probes.unavailable)
        return True

    with started(instances, start, f"run {run.run_id}") as fleet:
        try:
            if run.cancelled:
                raise RunCancelled
            change = Change()
            for instance, error in zip(instances, fleet.errors, strict=True):
                if error is not None:
                    log.error("starting %s: %s", instance.provisioner.target_name, error)
                    for index in instance.variants:
                        if index not in failed:
                            _fail(change, failed, index, f"variant {run.variants[index].name!r}: {error}")
            if change.variant_fields:
                state.write(run.run_id, change)
            yield fleet
        finally:  # closed by the blocks' end already, unless cut short (a cancel, a lost lease)
            for variant in opened.values():
                drop_variant(variant)


@dataclass
class _Loop:
    """What every block of a run shares: its instances, the iteration writer, the failed variants and
    the lease check."""

    run: _Run
    fleet: Fleet
    writer: IterationWriter
    failed: dict[int, str]
    check_lease: Callable[[], None]

    def raise_if_cancelled(self) -> None:
        """RunCancelled once the cancel watch saw the flag (no read here: the watch reads it every
        CANCEL_POLL_S off the timed loop; a session and a SELECT cost 1.3 ms per iteration)."""
        if self.run.cancelled:
            raise RunCancelled


def _block(loop: _Loop, variant: OpenVariant, step: Step) -> None:
    """Thaw the variant's instance, run its block (each iteration handed to the writer), freeze it."""
    run, fleet, failed = loop.run, loop.fleet, loop.failed
    if state.write(run.run_id, Change().run(current_variant=step.variant_index)).cancel_requested:
        raise RunCancelled
    name = run.variants[step.variant_index].name
    instance = fleet.of(step.variant_index)

    def block(one: OpenVariant) -> None:
        with fleet.block(instance):
            if instance.shared:
                reapply(one)
            for done in run_block(one, step.group, step.iterations):
                place = Place(
                    run.run_id,
                    step.variant_index,
                    name,
                    done.number,
                    step.group,
                    step.round,
                    step.block,
                    step.position,
                )
                loop.writer.add(place, done.timings, {PROBES: done.measurements})
                loop.check_lease()
                loop.raise_if_cancelled()

    _guarded(run, variant, failed, block)


def _guarded(
    run: _Run, variant: OpenVariant, failed: dict[int, str], work: Callable[[OpenVariant], None]
) -> None:
    """work(variant); a server or template error fails this variant (its instance stopped)."""
    index = variant.job.index
    try:
        work(variant)
    except _VARIANT_ERRORS as error:
        if run.cancelled:  # the cancel stopped its server or killed its statement
            raise RunCancelled from error
        gone = " (the server process is gone)" if _server_gone(variant, error) else ""
        reason = f"variant {variant.job.name!r}: server error{gone}: {error}"
        log.warning("run %s: %s", run.run_id, reason)
        state.write(run.run_id, _fail(Change(), failed, index, reason))
        try:
            variant.provisioner.stop()
        except Exception:
            log.exception("stopping the failed variant %s", variant.job.name)


def _server_gone(variant: OpenVariant, error: Exception) -> bool:
    """Whether the variant's server process is gone. A killed server resets its connections before the
    kernel has finished its exit, so after a lost connection (2006/2013) this waits up to
    GONE_WAIT_S seconds for the process to be seen gone."""
    lost = isinstance(error, pymysql.OperationalError) and error.args[:1] in ((2006,), (2013,))
    deadline = time.monotonic() + (GONE_WAIT_S if lost else 0.0)
    while variant.provisioner.pid() is not None:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def _close(fleet: Fleet, variant: OpenVariant) -> None:
    """Tear-down with the instance thawed, then frozen again: still only one instance works at a time."""
    with fleet.block(fleet.of(variant.job.index)):
        close_variant(variant)


def _raise_if_cancelled(run_id: int) -> None:
    if state.cancel_requested(run_id):
        raise RunCancelled
