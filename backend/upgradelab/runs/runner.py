"""Executes one run as one pass: plan -> instances -> for each round, for each variant in the round's
order: thaw, block, freeze -> record; then stop everything.

- plan (runs/plan.py): the experiment's schedule, stored in run.schedule before the first iteration
- instances (targets/instances.py): one server per variant, memory checked, started in parallel,
  context captured into run_variant, frozen while another variant's block runs
- blocks (runs/blocks.py): the workload's iterations on one instance
- record (results/store/ingest.py): each iteration's row, statements and probe deltas, then the stream

A variant that is refused or breaks is marked failed on its run_variant row and drops out; the
others go on and the run ends failed naming it. The Celery task (runs/tasks.py) calls execute_run;
the run's final status is written in a `finally`, so a run never stays queued/provisioning/running.
"""

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pymysql
from redis import Redis
from sqlalchemy import select

from upgradelab.db import sync_session, utcnow
from upgradelab.experiments.models import Experiment, Run, RunStatus, VariantStatus
from upgradelab.experiments.service import is_aa_control
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.probes.hooks import ATTACHED as PROBES
from upgradelab.probes.service import store_unavailable
from upgradelab.results.store.hooks import Place
from upgradelab.results.store.ingest import ingest_iteration
from upgradelab.results.store.summary import store_summary, undecided
from upgradelab.runs import leases, records
from upgradelab.runs.blocks import OpenVariant, VariantJob, close_variant, open_variant, reapply, run_block
from upgradelab.runs.context import run_context
from upgradelab.runs.leases import Lease, LeaseLost
from upgradelab.runs.locks import TargetLocks
from upgradelab.runs.plan import Budget, Schedule, Step, extensions, plan
from upgradelab.runs.preflight import VariantFailed, apply_variant, facts, refusal, server_options
from upgradelab.settings import Settings
from upgradelab.streaming.publisher import publish_status
from upgradelab.targets.instances import Instance, MemoryRefused, capture_context, check_memory, in_parallel
from upgradelab.targets.lock_names import lock_names
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import ProvisionError, provisioner_for
from upgradelab.workloads import WORKLOADS, ServerSession, Workload

log = logging.getLogger(__name__)

# What a broken server or template raises inside a block (ProvisionError, DatasetFailed and
# SysbenchError are RuntimeErrors); any of them fails that variant only.
_VARIANT_ERRORS = (pymysql.MySQLError, OSError, RuntimeError, VariantFailed)


class TargetsBusy(Exception):
    """Another run holds one of this run's targets; the task retries later (the run stays queued)."""


class RunCancelled(Exception):
    """The user asked to cancel; raised between iterations."""


@dataclass
class _Run:
    run_id: int
    experiment: Experiment
    workload: Workload
    variants: list[ResolvedVariant]
    targets: dict[str, Target]
    shared: set[int] = field(default_factory=set)  # variants on a server shared with another variant


def execute_run(run_id: int, redis: Redis, settings: Settings) -> RunStatus | None:
    """Run `run_id` to a final status and return it; None if the run is no longer queued.

    Raises TargetsBusy (before touching the run) when a target is locked by another run.
    """
    run = _load(run_id)
    if run is None:
        return None
    locks = TargetLocks(redis, lock_names(run.targets.values()), settings.target_lock_ttl_s, run_id)
    if not locks.acquire():
        raise TargetsBusy(", ".join(sorted(run.targets)))
    if leases.started_runs_on(run.targets, except_run=run_id):
        locks.release()
        raise TargetsBusy(", ".join(sorted(run.targets)))
    owner = leases.new_owner()
    if not leases.claim(run_id, owner, settings.run_lease_ttl_s):
        locks.release()
        return None
    status: RunStatus | None = RunStatus.failed
    try:
        # The heartbeat renews the lease and the target locks from here to the final status, whatever
        # this thread is doing (pre-flight, dataset preparation, server starts, long iterations).
        with Lease(run_id, owner, locks.renew, settings) as lease:
            status = _execute(run, settings, lease, owner)
    finally:
        locks.release()
    return status


def _execute(run: _Run, settings: Settings, lease: Lease, owner: str) -> RunStatus | None:
    """plan -> instances -> rounds of blocks -> final status (written only while the lease holds)."""
    run_id = run.run_id
    instances: list[Instance] = []
    failed: dict[int, str] = {}
    status: RunStatus | None = RunStatus.failed
    error: str | None = None
    completed = False
    try:
        schedule = _plan(run, settings)
        instances = _instances(run, settings, failed)
        lease.check()
        opened = _start(run, instances, failed)
        records.set_run(run_id, status=RunStatus.running)
        started = time.monotonic()
        for step in schedule.steps(run.workload.groups()):
            if step.variant_index in opened and step.variant_index not in failed:
                _block(run, opened[step.variant_index], step, failed, lease.check)
        _extend(run, schedule, started, opened, failed, lease.check)
        for index, variant in opened.items():
            if index not in failed:
                _guarded(run, variant, failed, _close)
        completed = True
        status = RunStatus.failed if failed else RunStatus.succeeded
        error = "; ".join(failed[i] for i in sorted(failed)) or None
    except RunCancelled:
        status = RunStatus.cancelled
    except LeaseLost:
        log.warning("run %s: lease lost, stopping", run_id)
    except (MemoryRefused, ProvisionError) as refused:
        error = str(refused)
    except Exception as failure:
        log.exception("run %s failed", run_id)
        error = f"{type(failure).__name__}: {failure}"
    finally:
        for instance in instances:
            try:
                instance.provisioner.stop()
            except Exception:
                log.exception("stopping %s after run %s", instance.provisioner.target_name, run_id)
        # The final status only while this worker still holds the lease: once it is lost the reaper
        # (or a cancel) has written it.
        if not lease.lost:
            reason = "the run was cancelled" if status == RunStatus.cancelled else f"the run failed: {error}"
            records.finish_variants(run_id, completed, reason)
            store_summary(run_id)  # computed once, before viewers see the final status
        final = {"status": status, "error": error, "finished_at": utcnow(), "current_variant": None}
        if not lease.lost and leases.finish(run_id, owner, leases.RUNS, **final):
            publish_status(run_id, final)
            log.info("run %s %s", run_id, status)
        else:
            status = None
    return status


def _load(run_id: int) -> _Run | None:
    with sync_session() as session:
        row = session.get(Run, run_id)
        if row is None or row.status != RunStatus.queued:
            return None
        experiment = row.experiment
        variants = [ResolvedVariant(**variant) for variant in experiment.variants]
        names = {variant.target for variant in variants}
        targets = {t.name: t for t in session.scalars(select(Target).where(Target.name.in_(names)))}
        workload_type = WORKLOADS[experiment.workload]
        workload = workload_type(workload_type.Parameters.model_validate(experiment.parameters or {}))
        return _Run(run_id, experiment, workload, variants, targets)


def _plan(run: _Run, settings: Settings) -> Schedule:
    """The schedule and the host facts, stored before anything starts; run_variant rows made."""
    experiment = run.experiment
    seed = experiment.seed if experiment.seed is not None else run.run_id
    schedule = plan(experiment.schedule, experiment.rounds, experiment.block, seed, len(run.variants))
    records.set_run(run.run_id, schedule=schedule.as_json(), context=run_context(Path(settings.server_dir)))
    records.add_variants(
        run.run_id,
        [(v.name, v.target, is_aa_control(experiment, i)) for i, v in enumerate(run.variants)],
    )
    return schedule


def _extend(
    run: _Run,
    schedule: Schedule,
    started: float,
    opened: dict[int, OpenVariant],
    failed: dict[int, str],
    check_lease: Callable[[], None],
) -> None:
    """Auto-extension (experiment.max_rounds): EXTENSION_STEP more rounds while a verdict is open and
    the budget allows; the added rounds' order is stored in run.schedule before their first block."""
    experiment = run.experiment
    if experiment.max_rounds is None or schedule.kind != "interleaved":
        return
    budget = Budget(experiment.max_rounds, experiment.max_minutes, started)
    done = schedule.rounds
    for longer in extensions(schedule, budget, lambda: undecided(run.run_id, set(failed))):
        records.set_run(run.run_id, schedule=longer.as_json())
        for step in longer.after(done, run.workload.groups()):
            if step.variant_index in opened and step.variant_index not in failed:
                _block(run, opened[step.variant_index], step, failed, check_lease)
        done = longer.rounds


def _fail(run: _Run, failed: dict[int, str], index: int, reason: str) -> None:
    failed[index] = reason
    records.set_variant(run.run_id, index, status=VariantStatus.failed, error=reason, finished_at=utcnow())


def _instances(run: _Run, settings: Settings, failed: dict[int, str]) -> list[Instance]:
    """Pre-flight every variant (a refusal fails that variant), then one Instance per variant that
    passed: slots 0, 1, ... per target, or one shared instance for a kind without `instances`.
    Refuses the whole run (MemoryRefused) when their memory exceeds MemAvailable."""
    instances: list[Instance] = []
    by_target: dict[str, list[Instance]] = {}
    for index, variant in enumerate(run.variants):
        target = run.targets.get(variant.target)
        if target is None:
            _fail(run, failed, index, f"variant {variant.name!r}: target {variant.target!r} does not exist")
            continue
        slots = by_target.setdefault(target.name, [])
        # A kind without `instances` (an existing server) has one server: its variants share slot 0's
        # provisioner, which also remembers what each of them changes (put back when the run ends).
        shared = bool(slots) and not slots[0].provisioner.instances
        provisioner = slots[0].provisioner if shared else provisioner_for(target, settings, slot=len(slots))
        if target.version is None:
            target.version = provisioner.server_version()
            records.record_version(target.name, target.version)
        reason = refusal(run.workload, variant, target, provisioner, run.experiment.policy)
        if reason:
            _fail(run, failed, index, reason)
            continue
        if shared:
            slots[0].variants.append(index)  # one server only: the variants share it
            continue
        instance = Instance(provisioner, server_options(run.workload, target, variant), [index])
        slots.append(instance)
        instances.append(instance)
    check_memory([i.options for i in instances], settings.instance_allowance_mb)
    run.shared = {index for instance in instances if instance.shared for index in instance.variants}
    return instances


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


def _start(run: _Run, instances: list[Instance], failed: dict[int, str]) -> dict[int, OpenVariant]:
    """Start every instance at once (one thread each), then freeze them all; a variant whose
    server does not start is failed. Each started variant's context goes to its run_variant row."""
    _raise_if_cancelled(run.run_id)
    opened: dict[int, OpenVariant] = {}

    def start(instance: Instance) -> None:
        first, *sharing = instance.variants
        records.set_variant(run.run_id, first, status=VariantStatus.running, started_at=utcnow())
        try:
            opened[first] = open_variant(
                _job(run, first), instance.provisioner, lambda p: records.set_run(run.run_id, progress=p)
            )
        except _VARIANT_ERRORS as error:
            _fail(run, failed, first, f"variant {run.variants[first].name!r}: server did not start: {error}")
            instance.provisioner.stop()
            return
        store_unavailable(run.run_id, first, opened[first].probes.unavailable)
        context = capture_context(instance.provisioner, opened[first].server.connection)
        records.record_version(run.variants[first].target, context["version"])
        for index in instance.variants:
            records.set_variant(run.run_id, index, **context)
        for index in sharing:  # a shared server: the other variants connect to it
            records.set_variant(run.run_id, index, status=VariantStatus.running, started_at=utcnow())
            opened[index] = open_variant(_job(run, index), instance.provisioner, lambda p: None)
            store_unavailable(run.run_id, index, opened[index].probes.unavailable)

    for instance, error in zip(instances, in_parallel(start, instances), strict=True):
        if error is not None:
            log.error("starting %s: %s", instance.provisioner.target_name, error)
            for index in instance.variants:
                if index not in failed:
                    _fail(run, failed, index, f"variant {run.variants[index].name!r}: {error}")
    for instance in instances:
        if not any(index in failed for index in instance.variants):
            instance.freeze()
    return opened


def _block(
    run: _Run, variant: OpenVariant, step: Step, failed: dict[int, str], check_lease: Callable[[], None]
) -> None:
    """Thaw the variant's instance, run its block (each iteration recorded), freeze it again."""
    _raise_if_cancelled(run.run_id)
    records.set_run(run.run_id, current_variant=step.variant_index)
    name = run.variants[step.variant_index].name

    def block(one: OpenVariant) -> None:
        one.provisioner.thaw()
        if step.variant_index in run.shared:
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
            ingest_iteration(place, done.timings, {PROBES: done.measurements})
            check_lease()
            _raise_if_cancelled(run.run_id)
        if step.variant_index not in run.shared:
            one.provisioner.freeze()

    _guarded(run, variant, failed, block)


def _guarded(
    run: _Run, variant: OpenVariant, failed: dict[int, str], work: Callable[[OpenVariant], None]
) -> None:
    """work(variant); a server or template error fails this variant (its instance stopped)."""
    index = variant.job.index
    try:
        work(variant)
    except _VARIANT_ERRORS as error:
        gone = "" if variant.provisioner.pid() is not None else " (the server process is gone)"
        reason = f"variant {variant.job.name!r}: server error{gone}: {error}"
        log.warning("run %s: %s", run.run_id, reason)
        _fail(run, failed, index, reason)
        try:
            variant.provisioner.stop()
        except Exception:
            log.exception("stopping the failed variant %s", variant.job.name)


def _close(variant: OpenVariant) -> None:
    """Tear-down with the instance thawed, then frozen again: still only one instance works at a time."""
    variant.provisioner.thaw()
    close_variant(variant)
    variant.provisioner.freeze()


def _raise_if_cancelled(run_id: int) -> None:
    if records.cancel_requested(run_id):
        raise RunCancelled
