"""Executes one capture check: the capture's settings on a scratch instance of the new version
(captures/option_check.py, the values as the new binary's options take them, from both binaries'
help) and, while it runs, the schema's names, the team's sql_mode, the character set defaults
(captures/schema_check.py) and the changed defaults as that started server shows them
(captures/default_check.py; host-dependent ones resolved for the team's host, given on the check or
seen in the capture, and the lab's, saying which defaults read its CPUs or memory), then the
captured schema loaded there and the captured statements asked of its parser
(captures/schema_trial.py), the check's target locked (its slot 0 is the scratch instance) by the
shared lifecycle, its final state written on every exit path. A cancel is seen before the binary is
asked (a check takes seconds: one binary run per refusal and one start) and between the schema's
statements.
"""

import logging
from dataclasses import asdict
from typing import Any

import pymysql
from redis import Redis

from upgradelab.captures import schema_check
from upgradelab.captures.configuration import Configuration
from upgradelab.captures.default_check import default_findings
from upgradelab.captures.defaults import BinaryDefaults
from upgradelab.captures.digests import Workload
from upgradelab.captures.dump import DumpRecord
from upgradelab.captures.host_defaults import CheckHosts, lab_host, team_host, used_by
from upgradelab.captures.jobs import CHECK_JOBS, check_targets_of
from upgradelab.captures.lab_binaries import binary_defaults, capture_binary_defaults
from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.captures.option_check import ScratchServer, check_options
from upgradelab.captures.reading import variable_origins
from upgradelab.captures.schema_load import LoadSummary
from upgradelab.captures.schema_trial import SchemaTrial, schema_text, try_schema, unquoted_places
from upgradelab.captures.statement_parse import ParseSummary
from upgradelab.datasets.fetch import DumpUnavailable, local_dump
from upgradelab.datasets.models import Dataset
from upgradelab.db import sync_session
from upgradelab.execution.cancel import CancelWatch
from upgradelab.execution.kinds import Ending
from upgradelab.execution.leases import Lease
from upgradelab.execution.lifecycle import execute
from upgradelab.execution.status import JobStatus
from upgradelab.settings import Settings
from upgradelab.targets.models import Target
from upgradelab.targets.option_names import server_names
from upgradelab.targets.provisioners import provisioner_for
from upgradelab.targets.provisioners.base import ADMIN_READ_TIMEOUT_S, Endpoint

log = logging.getLogger(__name__)


def execute_check(check_id: int, redis: Redis, settings: Settings) -> str | None:
    """Run check `check_id` to a final status and return it; None when it was not queued. Raises
    TargetsBusy (it stays queued) while another job holds its target."""
    targets = check_targets_of(check_id)
    return execute(
        CHECK_JOBS,
        check_id,
        targets,
        redis,
        settings,
        lambda lease: _watched(check_id, targets, settings, lease),
    )


def _watched(check_id: int, targets: list[Target], settings: Settings, lease: Lease) -> Ending:
    """_body under the check's cancel watch (execution/cancel.py), asked before the new version's
    binary is read, while the schema trial runs and at the end."""
    with CancelWatch.of(CHECK_JOBS, check_id) as cancel:
        return _body(check_id, targets, settings, lease, cancel)


def _body(
    check_id: int, targets: list[Target], settings: Settings, lease: Lease, cancel: CancelWatch
) -> Ending:
    if not targets:
        return Ending(JobStatus.failed, "its target no longer exists")
    [target] = targets
    with sync_session() as session:
        check = session.get(CaptureCheck, check_id)
        capture = session.get(Capture, check.capture_id) if check else None
        if check is None or cancel.cancelled():
            return Ending(JobStatus.cancelled)
        if capture is None or capture.configuration is None:
            return Ending(JobStatus.failed, "its capture holds no configuration")
        config = capture.configuration
        given = check.team_host
        accounts = [one.model_dump() for one in capture.accounts or []]  # option_check's mappings
        names = list(capture.identifiers or [])
        tried = capture.flavor != "my.cnf"  # an option file holds no schema and no statement
        workload = capture.workload
        record = capture.dump
        dataset = session.get(Dataset, capture.dataset_id) if capture.dataset_id is not None else None
        if dataset is not None:
            session.expunge(dataset)
    lease.check()
    provisioner = provisioner_for(target, settings)
    if not hasattr(provisioner, "server_refusal"):  # the service refuses these; a target changed since
        return Ending(JobStatus.failed, f"target {target.name} ({target.provisioner}): no scratch instance")
    server: ScratchServer = provisioner  # type: ignore[assignment]
    name = server_names(provisioner, settings).server
    try:
        new_defaults: BinaryDefaults | None = binary_defaults(target, settings)
    except Exception as error:  # its help unreadable: the other findings still stand
        log.warning("check %s: the defaults of %s: %s", check_id, target.name, error)
        new_defaults = None
    with sync_session() as session:  # the old binary's help: the captured values as its options take them
        old_defaults = capture_binary_defaults(session, config, settings)
    found: dict[str, list[Any]] = {}
    # host-dependent defaults resolved for both (captures/host_defaults.py)
    hosts = CheckHosts(
        team=team_host(config.host, given.cpus if given else None, given.memory_mib if given else None),
        lab=lab_host(),
    )

    def schema(endpoint: Endpoint) -> None:
        nonlocal hosts
        connection = endpoint.connect(read_timeout_s=ADMIN_READ_TIMEOUT_S)
        try:
            new = schema_check.server_variables(connection)
            new_origins = variable_origins(connection)
            found["identifier_findings"] = schema_check.identifier_findings(connection, names)
            found["sql_mode_findings"] = schema_check.sql_mode_findings(connection, config)
            found["charset_findings"] = schema_check.charset_findings(config, new, name, new_defaults)
            if new_defaults is not None:  # else default_findings stays None: not known
                changed = default_findings(config, new_defaults, new, hosts, new_origins, old_defaults)
                found["default_findings"] = changed
                hosts = used_by(hosts, {one.name: one.team_host_default for one in changed})
            if tried:
                refused = {one.mode.upper() for one in found["sql_mode_findings"]}
                text, why = _schema_of(dataset, record, settings)
                failing = [one.name for one in found["identifier_findings"]]
                places = unquoted_places(failing, text, workload)
                for one in found["identifier_findings"]:
                    one.places = places.get(one.name.lower(), [])
                tried_fields.update(
                    _trial(
                        connection, endpoint, target, check_id, text, why,
                        record.databases if record else [], workload, _team_sql_mode(config, refused),
                        frozenset(one.name.lower() for one in names), cancel,
                    )
                )  # fmt: skip
        finally:
            connection.close()

    tried_fields: dict[str, Any] = {}
    result = check_options(config, server, accounts, name, schema, (old_defaults, new_defaults))
    if cancel.cancelled():
        return Ending(JobStatus.cancelled)
    return Ending(
        JobStatus.succeeded,
        completed=True,
        fields={
            "findings": [asdict(finding) for finding in result.options],
            "account_findings": [asdict(finding) for finding in result.accounts],
            "server": name,
            "hosts": hosts.model_dump(mode="json"),
            **{key: [one.model_dump(mode="json") for one in rows] for key, rows in found.items()},
            **tried_fields,
        },
    )


def _trial(
    connection: Any,
    endpoint: Endpoint,
    target: Target,
    check_id: int,
    text: str | None,
    why: str | None,
    databases: list[str],
    workload: Workload | None,
    sql_mode: str | None,
    names: frozenset[str],
    cancel: CancelWatch,
) -> dict[str, Any]:
    """The schema trial's fields of the check (captures/schema_trial.py); a trial the scratch
    instance refused to set up (its account) is said in `schema_load`, the other findings stand."""
    try:
        trial = try_schema(
            connection, endpoint, target.flavor, target.name,
            dump=text, dump_error=why, databases=databases, workload=workload, sql_mode=sql_mode,
            names=names, cancelled=cancel.cancelled,
        )  # fmt: skip
    except pymysql.MySQLError as error:
        failed = SchemaTrial(load=LoadSummary(), statements=ParseSummary())
        failed.load.error = f"the schema could not be tried on the new version: {error}"
        return {"schema_load": failed.model_dump(mode="json")}
    return {
        "load_findings": [one.model_dump(mode="json") for one in trial.load_findings],
        "parse_findings": [one.model_dump(mode="json") for one in trial.parse_findings],
        "schema_load": trial.trial.model_dump(mode="json"),
    }


def _schema_of(
    dataset: Dataset | None, record: DumpRecord | None, settings: Settings
) -> tuple[str | None, str | None]:
    """(the schema part of the capture's dump, None) or (None, why there is none)."""
    if dataset is None:
        return None, (record.error if record and record.error else "the capture holds no dump")
    if dataset.deleted_at is not None:
        return None, f"its dataset {dataset.name} was deleted"
    if dataset.compression != "none":
        return None, f"its dataset {dataset.name} is {dataset.compression}-compressed: not a capture's dump"
    try:
        return schema_text(local_dump(dataset, settings), record.schema_bytes if record else None), None
    except (DumpUnavailable, OSError) as error:
        return None, f"its dataset {dataset.name} could not be read: {error}"


def _team_sql_mode(config: Configuration, refused: set[str]) -> str | None:
    """The captured sql_mode less the values the new version refused (None: none captured)."""
    variable = next((v for v in config.variables if v.name.lower() == "sql_mode"), None)
    if variable is None:
        return None
    return ",".join(
        mode for mode in variable.value.split(",") if mode.strip() and mode.strip().upper() not in refused
    )
