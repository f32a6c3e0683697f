"""Executes one run: pre-flight every variant, then for each variant start its server and time the workload.

The Celery task (runs/tasks.py) calls execute_run. The run's final status is written in a `finally`,
so a run never stays queued/provisioning/running after this function returns or raises.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pymysql
from redis import Redis
from sqlalchemy import select

from upgradelab.db import sync_session, utcnow
from upgradelab.experiments.variants import ResolvedVariant, unsupported_reason
from upgradelab.probes import startup_options
from upgradelab.results.summary import store_summary
from upgradelab.runs import leases
from upgradelab.runs.leases import LeaseLost, RunLease
from upgradelab.runs.locks import TargetLocks
from upgradelab.runs.models import Run, RunStatus
from upgradelab.runs.variant_execution import VariantJob, run_groups, start_with_dataset
from upgradelab.runs.variant_settings import apply_settings, has_settings, settings_refusal
from upgradelab.settings import Settings
from upgradelab.streaming.publisher import publish_status
from upgradelab.targets.models import Target
from upgradelab.targets.options import render_option
from upgradelab.targets.preflight import lock_names, preflight_refusal
from upgradelab.targets.provisioners import Provisioner, ProvisionError, provisioner_for
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.workloads import WORKLOADS, ServerSession, TargetFacts, Workload

log = logging.getLogger(__name__)


class TargetsBusy(Exception):
    """Another run holds one of this run's targets; the task retries later (the run stays queued)."""


class RunCancelled(Exception):
    """The user asked to cancel; raised between iterations."""


class VariantFailed(Exception):
    """A variant was refused or broke; the message names the variant and the reason."""


@dataclass
class _Plan:
    run_id: int
    workload: Workload
    iterations: int
    variants: list[ResolvedVariant]
    targets: dict[str, Target]
    policy: str = "warm"


def execute_run(run_id: int, redis: Redis, settings: Settings) -> RunStatus | None:
    """Run `run_id` to a final status and return it; None if the run is no longer queued (or its
    lease was lost: the reaper or a cancel wrote the final status).

    Raises TargetsBusy (before touching the run) when a target is locked by another run.
    """
    plan = _load_plan(run_id)
    if plan is None:
        return None
    locks = TargetLocks(redis, lock_names(plan.targets.values()), settings.target_lock_ttl_s, run_id)
    if not locks.acquire():
        raise TargetsBusy(", ".join(sorted(plan.targets)))
    if leases.started_runs_on(plan.targets, except_run=run_id):
        locks.release()
        raise TargetsBusy(", ".join(sorted(plan.targets)))
    owner = leases.new_owner()
    if not leases.claim(run_id, owner, settings.run_lease_ttl_s):
        locks.release()
        return None
    provisioners: dict[str, Provisioner] = {}
    status: RunStatus | None = RunStatus.failed
    error: str | None = None
    try:
        with RunLease(run_id, owner, locks.renew, settings) as lease:
            try:
                provisioners = {name: provisioner_for(t, settings) for name, t in plan.targets.items()}
                _preflight(plan, provisioners)
                lease.check()
                _set(run_id, status=RunStatus.running)
                for index, variant in enumerate(plan.variants):
                    _run_variant(plan, index, variant, provisioners[variant.target], lease.check)
                status = RunStatus.succeeded
            except RunCancelled:
                status = RunStatus.cancelled
            except LeaseLost:
                log.warning("run %s: lease lost, stopping", run_id)
            except (VariantFailed, ProvisionError) as failure:
                error = str(failure)
            except Exception as failure:
                log.exception("run %s failed", run_id)
                error = f"{type(failure).__name__}: {failure}"
            finally:
                for provisioner in provisioners.values():
                    try:
                        provisioner.stop()
                    except Exception:
                        log.exception("stopping %s after run %s", provisioner.target_name, run_id)
                # The final status only while this worker still holds the lease: once it is lost the
                # reaper (or a cancel) has written it. The heartbeat keeps the lease until here.
                if not lease.lost:
                    store_summary(run_id)  # computed once, before viewers see the final status
                final = {"status": status, "error": error, "finished_at": utcnow(), "current_variant": None}
                if leases.finish(run_id, owner, **final):
                    publish_status(run_id, final)
                    log.info("run %s %s", run_id, status)
                else:
                    status = None
    finally:
        locks.release()
    return status


def _load_plan(run_id: int) -> _Plan | None:
    with sync_session() as session:
        run = session.get(Run, run_id)
        if run is None or run.status != RunStatus.queued:
            return None
        experiment = run.experiment
        variants = [ResolvedVariant(**variant) for variant in experiment.variants]
        names = {variant.target for variant in variants}
        targets = {t.name: t for t in session.scalars(select(Target).where(Target.name.in_(names)))}
        workload_type = WORKLOADS[experiment.workload]
        workload = workload_type(workload_type.Parameters.model_validate(experiment.parameters or {}))
        return _Plan(run_id, workload, experiment.iterations, variants, targets, experiment.policy)


def _set(run_id: int, **fields: Any) -> None:
    with sync_session() as session:
        run = session.get(Run, run_id)
        if run is None or run.status.is_final:  # ended by the reaper meanwhile: leave it so
            return
        for name, value in fields.items():
            setattr(run, name, value)
        session.commit()
    publish_status(run_id, fields)


def _facts(target: Target) -> TargetFacts:
    return TargetFacts(target.name, target.flavor, target.version or "", target.disposable)


def _server_options(plan: _Plan, variant: ResolvedVariant) -> list[str]:
    """The probes' options, the template's for this target (parameters included), then the
    variant's: an option file's last occurrence wins, so the variant overrides both."""
    target = plan.targets[variant.target]
    options = [*startup_options(target.flavor).items(), *plan.workload.server_options(_facts(target)).items()]
    return [render_option(k, v) for k, v in options] + variant.option_lines()


def _preflight(plan: _Plan, provisioners: dict[str, Provisioner]) -> None:
    """Refuse, before any iteration, every variant its server cannot take (VariantFailed)."""
    for variant in plan.variants:
        target = plan.targets.get(variant.target)
        if target is None:
            raise VariantFailed(f"variant {variant.name!r}: target {variant.target!r} does not exist")
        provisioner = provisioners[variant.target]
        if target.version is None:
            target.version = provisioner.server_version()
            _record_version(target.name, target.version)
        reason = (
            unsupported_reason(variant, target.flavor, target.version)
            or plan.workload.refusal(_facts(target))
            or preflight_refusal(target, provisioner, variant, plan.policy, plan.workload)
        )
        if reason:
            raise VariantFailed(f"variant {variant.name!r} cannot run on {target.name}: {reason}")
        try:
            provisioner.check_options(_server_options(plan, variant))
        except ProvisionError as refused:
            raise VariantFailed(
                f"variant {variant.name!r}: {target.name} ({target.version}) refuses its options:\n{refused}"
            ) from refused
        if has_settings(variant):
            _preflight_settings(plan, variant, provisioner, target)


def _preflight_settings(
    plan: _Plan, variant: ResolvedVariant, provisioner: Provisioner, target: Target
) -> None:
    """Start a scratch server with the variant's options and try its SET GLOBAL/SESSION and instance
    statements there; VariantFailed names the variant, the setting and the server's answer."""
    try:
        connection = provisioner.start(_server_options(plan, variant)).connect()
    except (ProvisionError, pymysql.MySQLError) as error:
        raise VariantFailed(
            f"variant {variant.name!r}: server did not start for the pre-flight: {error}"
        ) from error
    try:
        refusal = settings_refusal(connection, variant)
    finally:
        connection.close()
        provisioner.stop()
    if refusal:
        raise VariantFailed(f"variant {variant.name!r}: {target.name} ({target.version}) refuses {refusal}")


def _record_version(target_name: str, version: str) -> None:
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == target_name)).one()
        target.version = version
        session.commit()


def _run_variant(
    plan: _Plan,
    index: int,
    variant: ResolvedVariant,
    provisioner: Provisioner,
    check_lease: Callable[[], None],
) -> None:
    """Server started (dataset prepared or reused), variant applied, the groups' iterations under the
    experiment's policy (runs/variant_execution.py), tear-down, stop."""
    _raise_if_cancelled(plan.run_id)
    _set(plan.run_id, current_variant=index, progress=None)
    target = plan.targets[variant.target]
    job = VariantJob(
        plan.run_id,
        index,
        variant.name,
        plan.workload,
        plan.iterations,
        plan.policy,
        _server_options(plan, variant),
        _facts(target),
        variant.redo_log,
    )

    def apply(server: ServerSession) -> None:
        apply_variant(server.connection, variant)

    def after_iteration() -> None:
        check_lease()
        _raise_if_cancelled(plan.run_id)

    server: ServerSession | None = None
    try:
        try:
            server = start_with_dataset(job, provisioner, apply, lambda p: _set(plan.run_id, progress=p))
        except (ProvisionError, pymysql.MySQLError) as error:
            raise VariantFailed(f"variant {variant.name!r}: server did not start: {error}") from error
        _record_version(variant.target, _select_one(server.connection, "SELECT VERSION()"))
        run_groups(job, provisioner, server, apply, after_iteration)
    except pymysql.MySQLError as error:
        raise VariantFailed(f"variant {variant.name!r}: server error: {error}") from error
    except (OSError, RuntimeError) as error:  # DatasetFailed, SysbenchError, ...
        if isinstance(error, ProvisionError):
            raise
        raise VariantFailed(f"variant {variant.name!r}: {error}") from error
    finally:
        if server is not None:
            server.connection.close()
        provisioner.stop()


def apply_variant(connection: ServerConnection, variant: ResolvedVariant) -> None:
    """Apply what cannot go in the option file: the variant's instance statements, SET GLOBAL and
    SET SESSION (on this, the workload connection), then the redo log switch, verified by
    Innodb_redo_log_enabled.

    Raises VariantFailed if the server's status does not show the requested state.
    """
    apply_settings(connection, variant)
    if variant.redo_log != "disabled":
        return
    with connection.cursor() as cursor:
        cursor.execute("ALTER INSTANCE DISABLE INNODB REDO_LOG")
        cursor.execute("SHOW GLOBAL STATUS LIKE 'Innodb_redo_log_enabled'")
        row = cursor.fetchone()
    if row is None or str(row[1]).upper() != "OFF":
        raise VariantFailed(
            f"variant {variant.name!r}: Innodb_redo_log_enabled is {row and row[1]!r}, not OFF"
        )


def _select_one(connection: ServerConnection, sql: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        row = cursor.fetchone()
    return str(row[0]) if row else ""


def _raise_if_cancelled(run_id: int) -> None:
    with sync_session() as session:
        if session.scalars(select(Run.cancel_requested).where(Run.id == run_id)).one():
            raise RunCancelled
