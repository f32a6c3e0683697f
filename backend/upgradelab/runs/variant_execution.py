"""One variant of a run: start its server, prepare (or reuse) the dataset, then the iteration groups
with the experiment's cold/warm policy, storing every iteration's samples at once.

Policies (workloads.base.POLICIES): `warm` never restarts; `cold_first` restarts once before the
first iteration (after dataset preparation, so the buffer pool starts empty); `cold_each_group`
before the first iteration of each group (table, thread count); `cold_every` before every iteration.
"""

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pymysql

from upgradelab.db import sync_session
from upgradelab.probes import ProbeSet
from upgradelab.probes import service as probe_records
from upgradelab.results.models import Sample
from upgradelab.streaming.publisher import publish_iteration
from upgradelab.targets.provisioners import Provisioner
from upgradelab.workloads import ServerSession, TargetFacts, Workload
from upgradelab.workloads.base import DatasetProgress
from upgradelab.workloads.datasets import is_prepared, mark_prepared, spec_hash

log = logging.getLogger(__name__)


class DatasetFailed(RuntimeError):
    """Preparing the template's dataset failed; the message carries the server's or tool's words."""


@dataclass
class VariantJob:
    """What _run_variant hands over: where to store, what to run, how often, with which policy."""

    run_id: int
    index: int
    name: str
    workload: Workload
    iterations: int
    policy: str
    options: list[str]
    facts: TargetFacts
    redo_log: str = "enabled"  # the variant's; a kept datadir may come from a redo-off variant


def restart_before(policy: str, group_index: int, number_in_group: int) -> bool:
    """Whether the policy restarts the server before this iteration (both indexes 0-based)."""
    if policy == "cold_every":
        return True
    if policy == "cold_each_group":
        return number_in_group == 0
    if policy == "cold_first":
        return group_index == 0 and number_in_group == 0
    return False


def start_with_dataset(
    job: VariantJob,
    provisioner: Provisioner,
    apply: Callable[[ServerSession], None],
    set_progress: Callable[[dict[str, Any] | None], None],
) -> ServerSession:
    """Start the variant's server and make sure the template's dataset is there.

    With a dataset spec the server starts on the kept datadir; if `upgradelab_meta.datasets` holds
    the spec's hash the dataset is reused, otherwise the server starts again from a fresh copy of
    the template and the dataset is prepared (progress in run.progress) and recorded.
    """
    spec_wanted = _has_dataset(job.workload)
    endpoint = provisioner.start(job.options, keep_data=spec_wanted)
    server = ServerSession(endpoint.connect(), endpoint, job.facts, _throttled(set_progress))
    apply(server)
    spec = job.workload.dataset_spec(server) if spec_wanted else None
    if spec is None:
        return server
    digest = spec_hash(job.workload.info.slug, spec)
    if is_prepared(server.connection, digest, endpoint.database):
        _redo_log_as_wanted(server, job.redo_log)
        set_progress({"phase": "dataset reused", "spec_hash": digest})
        return server
    server.connection.close()
    endpoint = provisioner.start(job.options, keep_data=False)
    server.connection = endpoint.connect()
    apply(server)
    try:
        job.workload.prepare(server)
    except (pymysql.MySQLError, RuntimeError) as error:
        server.connection.close()
        raise DatasetFailed(f"preparing the {job.workload.info.slug} dataset failed: {error}") from error
    mark_prepared(server.connection, digest, job.workload.info.slug, spec, endpoint.database)
    return server


def run_groups(
    job: VariantJob,
    provisioner: Provisioner,
    server: ServerSession,
    apply: Callable[[ServerSession], None],
    after_iteration: Callable[[], None],
) -> None:
    """Set-up, then `iterations` iterations per group (numbered 1.. over the variant), tear-down.

    The probes (probes/) read the server around every iteration on their own connection, outside
    the timed region; their deltas are stored with the iteration's samples. A probe the server
    cannot give is recorded once per variant as unavailable. After a policy restart the probe
    connection is opened again (the workload connection, and so its THREAD_ID, is new).
    """
    job.workload.setup(server)
    probes = ProbeSet.open(server.endpoint, server.connection)
    with sync_session() as session:
        probe_records.record_unavailable(session, job.run_id, job.index, probes.unavailable)
        session.commit()
    number = 0
    try:
        for group_index, group in enumerate(job.workload.groups()):
            for in_group in range(job.iterations):
                if restart_before(job.policy, group_index, in_group):
                    probes.close()
                    server.connection.close()
                    server.endpoint = provisioner.restart()
                    server.connection = server.endpoint.connect()
                    apply(server)
                    probes = ProbeSet.open(server.endpoint, server.connection)
                number += 1
                with probes.around(number) as measured:
                    timings = job.workload.iteration(server, number, group)
                with sync_session() as session:
                    probe_records.record_iteration(
                        session, job.run_id, job.index, number, measured.measurements
                    )
                    session.add_all(
                        Sample(
                            run_id=job.run_id,
                            variant_index=job.index,
                            variant=job.name,
                            iteration=number,
                            statement=timing.statement[:200],
                            elapsed_s=timing.elapsed_s,
                            label=group,
                            metrics=timing.metrics or None,
                        )
                        for timing in timings
                    )
                    session.commit()
                # One line per stored iteration: the fault tests compare these with the stored rows.
                log.info("iteration stored: run=%s variant=%s iteration=%s", job.run_id, job.index, number)
                publish_iteration(job.run_id, job.index, job.name, number, [t.elapsed_s for t in timings])
                after_iteration()
    finally:
        probes.close()
    job.workload.teardown(server)


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
