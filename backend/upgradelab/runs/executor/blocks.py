"""Blocks: the workload's iterations on one variant's instance, one block at a time.

A variant's instance is opened once (server started, dataset prepared or reused, variant applied,
the template's set-up, probes connected) and then runs the blocks the schedule gives it; each
iteration is read by the probes and handed back as a Done for results/store/ingest.

Policies (workloads.base.POLICIES) keep their meaning per instance: `warm` never restarts;
`cold_first` restarts before the instance's first iteration (after dataset preparation, so the
buffer pool starts empty); `cold_each_group` before the instance's first iteration of each group
(table, thread count); `cold_every` before every iteration.
"""

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pymysql

from upgradelab.probes import ProbeSet
from upgradelab.probes.base import Measurement
from upgradelab.targets.provisioners import Provisioner
from upgradelab.workloads import ServerSession, TargetFacts, Workload
from upgradelab.workloads.base import DatasetProgress, StatementTiming
from upgradelab.workloads.datasets import is_prepared, mark_prepared, spec_hash


class DatasetFailed(RuntimeError):
    """Preparing the template's dataset failed; the message carries the server's or tool's words."""


@dataclass
class VariantJob:
    """What a variant's blocks need: what to run, on which options, how to apply the variant."""

    index: int
    name: str
    workload: Workload
    policy: str
    options: list[str]
    facts: TargetFacts
    apply: Callable[[ServerSession], None]
    redo_log: str = "enabled"  # the variant's; a kept datadir may come from a redo-off variant


@dataclass(frozen=True)
class Done:
    """One finished iteration: its number (1-based over the variant), timings and probe deltas."""

    number: int
    timings: list[StatementTiming]
    measurements: list[Measurement]


@dataclass
class OpenVariant:
    """A variant's instance while the run goes on: server session, probes, iterations done so far."""

    job: VariantJob
    provisioner: Provisioner
    server: ServerSession
    probes: ProbeSet
    done: int = 0
    groups_seen: set[str] = field(default_factory=set)


def restart_before(policy: str, first_on_instance: bool, first_of_group: bool) -> bool:
    """Whether the policy restarts the instance before this iteration (see the module docstring)."""
    if policy == "cold_every":
        return True
    if policy == "cold_each_group":
        return first_of_group
    if policy == "cold_first":
        return first_on_instance
    return False


def open_variant(
    job: VariantJob, provisioner: Provisioner, set_progress: Callable[[dict[str, Any] | None], None]
) -> OpenVariant:
    """Start the instance with the dataset there, apply the variant, run the template's set-up and
    connect the probes (their unavailable ones are in `probes.unavailable`). Raises ProvisionError,
    pymysql errors and DatasetFailed; the caller stops the instance."""
    server = start_with_dataset(job, provisioner, set_progress)
    job.workload.setup(server)
    return OpenVariant(job, provisioner, server, ProbeSet.open(server.endpoint, server.connection))


def start_with_dataset(
    job: VariantJob, provisioner: Provisioner, set_progress: Callable[[dict[str, Any] | None], None]
) -> ServerSession:
    """Start the variant's server and make sure the template's dataset is there.

    With a dataset spec the server starts on the kept datadir of its slot; if
    `upgradelab_meta.datasets` holds the spec's hash the dataset is reused, otherwise the server
    starts again from a fresh copy of the template (not again when that start was one already:
    Provisioner.fresh_data, a slot's first dataset) and the dataset is prepared (progress in
    run.progress) and recorded.
    """
    spec_wanted = _has_dataset(job.workload)
    endpoint = provisioner.start(job.options, keep_data=spec_wanted)
    server = ServerSession(endpoint.connect(), endpoint, job.facts, _throttled(set_progress))
    job.apply(server)
    spec = job.workload.dataset_spec(server) if spec_wanted else None
    if spec is None:
        return server
    digest = spec_hash(job.workload.info.slug, spec)
    if is_prepared(server.connection, digest, server.endpoint.database):
        _redo_log_as_wanted(server, job.redo_log)
        set_progress({"phase": "dataset reused", "spec_hash": digest})
        return server
    if not provisioner.fresh_data:
        server.connection.close()
        endpoint = provisioner.start(job.options, keep_data=False)
        server.connection = endpoint.connect()
        job.apply(server)
    try:
        job.workload.prepare(server)
    except (pymysql.MySQLError, RuntimeError) as error:
        server.connection.close()
        raise DatasetFailed(f"preparing the {job.workload.info.slug} dataset failed: {error}") from error
    mark_prepared(server.connection, digest, job.workload.info.slug, spec, server.endpoint.database)
    return server


def run_block(variant: OpenVariant, group: str, iterations: int) -> Iterator[Done]:
    """`iterations` iterations of `group` on the variant's instance, each read by the probes (on
    their own connection, outside the timed region). After a policy restart the workload and probe
    connections are opened again and the variant applied again (a new THREAD_ID)."""
    job = variant.job
    for index in range(iterations):
        first_of_group = group not in variant.groups_seen
        restarted = restart_before(job.policy, variant.done == 0, first_of_group)
        if restarted:
            _restart(variant)
        variant.groups_seen.add(group)
        number = variant.done + 1
        # inside a block the previous iteration's after-readings are this one's before-readings;
        # per-block probes (mutex waits) are read again where the next iteration restarts or none follows
        block_end = index == iterations - 1 or restart_before(job.policy, False, False)
        with variant.probes.around(
            number, after_previous=index > 0 and not restarted, block_end=block_end
        ) as measured:
            timings = job.workload.iteration(variant.server, number, group)
        variant.done = number
        yield Done(number, timings, measured.measurements)


def reapply(variant: OpenVariant) -> None:
    """Apply the variant again (a server shared between variants: its SET GLOBAL settings)."""
    variant.job.apply(variant.server)


def close_variant(variant: OpenVariant) -> None:
    """The template's tear-down, then the probe and workload connections closed (the server stays)."""
    try:
        variant.probes.close()
        variant.job.workload.teardown(variant.server)
    finally:
        variant.server.connection.close()


def drop_variant(variant: OpenVariant) -> None:
    """Close the probe and harness connections without the template's tear-down (a run cut short: a
    cancel); closed ones are left as they are. A server the lab does not stop (existing) keeps no
    connection of the run."""
    for connection in (variant.probes.connection, variant.server.connection):
        with contextlib.suppress(pymysql.MySQLError, OSError):
            connection.close()


def _restart(variant: OpenVariant) -> None:
    variant.probes.close()
    variant.server.connection.close()
    variant.server.endpoint = variant.provisioner.restart()
    variant.server.connection = variant.server.endpoint.connect()
    variant.job.apply(variant.server)
    variant.probes = ProbeSet.open(variant.server.endpoint, variant.server.connection)


def _redo_log_as_wanted(server: ServerSession, redo_log: str) -> None:
    """Re-enable a redo log that a previous variant disabled on the kept datadir (MySQL 8.0.21+;
    servers without Innodb_redo_log_enabled are left alone)."""
    if redo_log != "enabled":
        return
    with server.connection.cursor() as cursor:
        cursor.execute("SHOW GLOBAL STATUS LIKE 'Innodb_redo_log_enabled'")
        row = cursor.fetchone()
        if row is not None and str(row[1]).upper() == "OFF":
            cursor.execute("ALTER INSTANCE ENABLE INNODB REDO_LOG")


def _has_dataset(workload: Workload) -> bool:
    return type(workload).dataset_spec is not Workload.dataset_spec


def _throttled(
    set_progress: Callable[[dict[str, Any] | None], None], interval_s: float = 1.0
) -> Callable[[DatasetProgress], None]:
    """At most one stored progress per interval_s, except the last (rows == rows_total)."""
    last = [0.0]

    def report(progress: DatasetProgress) -> None:
        now = time.monotonic()
        if now - last[0] >= interval_s or progress.rows >= progress.rows_total:
            last[0] = now
            set_progress(progress.as_dict())

    return report
