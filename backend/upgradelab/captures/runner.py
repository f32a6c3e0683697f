"""Executes one capture: the target's server reached (an existing one only read; a local, tarball or
docker target's server started with its own options for the capture and stopped after it), then read
on one connection (captures/reading.py): version and variables (where each value came from too),
compared with the defaults of the lab's binary of that version (captures/lab_binaries.py), the
accounts, the statement digests, the schema's names as the server parses them
(captures/identifiers.py), its captured statements as its parser takes them (PREPARE on a
connection of their own: captures/statement_parse.py); then the schema (and data up to the limit)
dumped by the lab's dump client of that version (beside a local or tarball target's client, or in a
container of a docker target's image: captures/docker_dump.py) and stored as a dataset
(captures/dump.py).

lifecycle (execution/lifecycle.py) holds the target's lock, the capture's lease and heartbeat, and
writes its final state on every exit path. A cancel is seen between the reads (each is a few fixed
statements of under a second) and while the dump client runs.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pymysql
from redis import Redis
from sqlalchemy import select, update

from upgradelab.captures import configuration, dump, reading
from upgradelab.captures.digest_values import bind_on_server
from upgradelab.captures.docker_dump import docker_client
from upgradelab.captures.identifiers import read_identifiers
from upgradelab.captures.jobs import CAPTURE_JOBS, targets_of
from upgradelab.captures.lab_binaries import defaults_for
from upgradelab.captures.models import Capture
from upgradelab.captures.statement_parse import ask_old_server
from upgradelab.db import sync_session
from upgradelab.execution.cancel import CancelWatch
from upgradelab.execution.kinds import Ending
from upgradelab.execution.leases import Lease
from upgradelab.execution.lifecycle import execute
from upgradelab.execution.status import JobStatus
from upgradelab.settings import Settings
from upgradelab.streaming.publisher import publish_status
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import DockerProvisioner, ExistingProvisioner, provisioner_for
from upgradelab.targets.provisioners.base import ADMIN_READ_TIMEOUT_S, Endpoint

log = logging.getLogger(__name__)


class _Cancelled(Exception):
    """The user asked to cancel; the capture ends cancelled with nothing stored."""


@dataclass(frozen=True)
class _Job:
    """The capture as its steps see it: its lease (lost: LeaseLost) and its cancel watch."""

    capture_id: int
    lease: Lease
    cancel: CancelWatch


def execute_capture(capture_id: int, redis: Redis, settings: Settings) -> str | None:
    """Run capture `capture_id` to a final status and return it; None when it was not queued.
    Raises TargetsBusy (the capture stays queued) while another job holds its target."""
    targets = targets_of(capture_id)
    return execute(
        CAPTURE_JOBS,
        capture_id,
        targets,
        redis,
        settings,
        lambda lease: _watched(capture_id, targets, settings, lease),
    )


def _write(capture_id: int, **fields: Any) -> None:
    with sync_session() as session:
        session.execute(update(Capture).where(Capture.id == capture_id).values(**fields))
        session.commit()
    if "progress" in fields:
        publish_status(capture_id, {"progress": fields["progress"]}, kind="capture")


def _step(job: _Job, phase: str, message: str) -> None:
    """Progress written; LeaseLost / _Cancelled raised when the capture is no longer this worker's."""
    job.lease.check()
    if job.cancel.cancelled():
        raise _Cancelled()
    _write(job.capture_id, progress={"phase": phase, "message": message})


def _watched(capture_id: int, targets: list[Target], settings: Settings, lease: Lease) -> Ending:
    """_body under the capture's cancel watch (execution/cancel.py), asked between its reads."""
    with CancelWatch.of(CAPTURE_JOBS, capture_id) as cancel:
        return _body(_Job(capture_id, lease, cancel), targets, settings)


def _body(job: _Job, targets: list[Target], settings: Settings) -> Ending:
    if not targets:
        return Ending(JobStatus.failed, "its target no longer exists")
    [target] = targets
    provisioner = provisioner_for(target, settings)
    existing = target.provisioner == ExistingProvisioner.kind
    try:
        _step(job, "connecting", f"reaching {target.name}")
        # an existing server is only checked (SELECT 1, the lab database); the lab's own server is
        # started with the target's own options, as a run's variant without options would be
        endpoint = provisioner.start([])
        connection = endpoint.connect(read_timeout_s=ADMIN_READ_TIMEOUT_S)
        try:
            return _read(job, target, connection, endpoint, settings)
        finally:
            connection.close()
    except _Cancelled:
        return Ending(JobStatus.cancelled)
    finally:
        if existing:
            provisioner.stop()  # closes the lab's connections; it changed nothing to put back
        else:
            provisioner.discard()


def lab_dump_client(
    origin_target: str | None, flavor: str, settings: Settings
) -> Callable[[], dump.DumpClient] | None:
    """The dump client of the lab target whose binary gave the defaults, made when the dump starts:
    beside its client (local, tarball) or in a container of its image (docker); None without one."""
    if origin_target is None:
        return None
    with sync_session() as session:
        lab = session.scalars(select(Target).where(Target.name == origin_target)).first()
        if lab is None:
            return None
        session.expunge(lab)
    provisioner = provisioner_for(lab, settings)
    if isinstance(provisioner, DockerProvisioner):
        return lambda: docker_client(provisioner, flavor)
    return lambda: dump.local_client(provisioner.endpoint.client, flavor)


def _read(job: _Job, target: Target, connection: Any, endpoint: Endpoint, settings: Settings) -> Ending:
    capture_id = job.capture_id
    version, comment, variables = reading.server_identity(connection)
    origins = reading.variable_origins(connection)
    flavor = "mariadb" if "mariadb" in version.lower() else target.flavor
    _step(job, "defaults", f"defaults of the lab's {flavor} {version} binary")
    with sync_session() as session:
        found = defaults_for(session, flavor, version, settings)
    defaults, origin = found if found else (None, None)
    config = configuration.build(flavor, version, comment, variables, defaults, origin, origins)
    _step(job, "accounts", "accounts (user, host, plugin)")
    accounts: list[dict[str, str]] | None = None
    accounts_error = None
    try:
        accounts = reading.accounts(connection)
    except pymysql.MySQLError as error:
        accounts_error = f"mysql.user cannot be read by the capture's account: {error}"
    _step(job, "workload", "statement digests (performance_schema)")
    workload = reading.read_workload(connection, variables=variables)
    _step(job, "statements", "the captured statements asked of the server's parser (PREPARE)")
    ask_old_server(endpoint, workload, flavor)
    with sync_session() as session:
        row = session.get(Capture, capture_id)
        schema_only, limit_mb = (row.schema_only, row.data_limit_mb) if row else (True, None)
    if not schema_only:  # a schema-only capture reads none of the team's data
        _step(job, "values", "the digest texts' placeholders bound to values of their columns")
        bind_on_server(endpoint, workload, flavor)
    _step(job, "identifiers", "the schema's names, asked of the server's parser")
    try:
        names = read_identifiers(connection)
    except pymysql.MySQLError as error:  # information_schema unreadable: no names, the rest stands
        log.warning("capture %s: the schema's names: %s", capture_id, error)
        names = []
    _step(job, "dump", "the schema" + ("" if schema_only else " and data") + " by the dump client")
    record, dataset_id = dump.take(
        connection,
        endpoint,
        lab_dump_client(origin.target if origin else None, flavor, settings),
        flavor,
        capture_id=capture_id,
        schema_only=schema_only,
        limit_mb=limit_mb,
        settings=settings,
        cancelled=job.cancel.cancelled,
    )
    _step(job, "stored", record.error or f"dataset {record.dataset}")
    return Ending(
        JobStatus.succeeded,
        completed=True,
        fields={
            "flavor": flavor,
            "version": version,
            "configuration": config.model_dump(mode="json"),
            "accounts": accounts,
            "accounts_error": accounts_error,
            "workload": workload.model_dump(mode="json"),
            "identifiers": [name.model_dump(mode="json") for name in names],
            "dump": record.model_dump(mode="json"),
            "dataset_id": dataset_id,
            "progress": {"phase": "done", "message": f"{config.differs} variables differ from defaults"},
        },
    )
