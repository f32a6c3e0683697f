"""What the lab may do on a server it does not own, detected (never assumed) from the server itself.

Detected when an existing target is added (or re-checked: POST /api/targets/{name}/capabilities) and
again in every run's pre-flight; stored in `target.capabilities` (migration 0007_existing), served by
GET /api/targets/{name}, shown on the target page. Each capability says how it was found:

    restart           MySQL's RESTART: the SHUTDOWN privilege (SHOW GRANTS); whether the server comes
                      back is known only after a real RESTART (detect(..., try_restart=True)); MariaDB
                      has no RESTART statement
    set_global        `SET GLOBAL max_connect_errors = @@GLOBAL.max_connect_errors` (its own value:
                      nothing changes) succeeds; which privilege grants it (SYSTEM_VARIABLES_ADMIN / SUPER)
    alter_instance    MySQL: `ALTER INSTANCE ENABLE INNODB REDO_LOG` while the redo log is on (a no-op)
                      succeeds, i.e. INNODB_REDO_LOG_ENABLE; MariaDB has no such statement
    performance_schema, mutex_instruments, waits_consumer    what the probes need (probes/)
    file              the FILE privilege and secure_file_priv not NULL
    lab_database      CREATE TABLE and DROP TABLE of a scratch table in the lab's database succeed
plus facts: flavor, version, @@version_comment, managed service (Aurora: aurora_version exists;
RDS: basedir under /rdsdbbin/), read_only, super_read_only, log_bin, secure_file_priv.

A read-only target (purpose capture, targets/provisioners/existing_settings.py) is only read: the
three checks that write (set_global, alter_instance, lab_database) and the restart test are not
tried and say so (READ_ONLY_DETAIL); every other check is a SELECT or a SHOW.
"""

import re
from datetime import UTC, datetime
from typing import Any

import pymysql

from upgradelab.targets.capability_facts import Capabilities as Capabilities
from upgradelab.targets.capability_facts import Capability as Capability
from upgradelab.targets.provisioners.base import ADMIN_READ_TIMEOUT_S, Endpoint, ServerConnection
from upgradelab.targets.provisioners.existing import EXISTING_CONNECT_S, restart_and_wait

_GRANT = re.compile(r"^GRANT (.+?) ON (\S+) TO ", re.IGNORECASE)
_SCRATCH_TABLE = "upgradelab_capability_check"
_MUTEX = "wait/synch/mutex/innodb/%"
READ_ONLY_DETAIL = "not tried: the target's purpose is capture (read-only: the lab writes nothing there)"
_WRITE_CHECKS = ("set_global", "alter_instance", "lab_database")
_UNTESTED = (
    "SHUTDOWN privilege granted; whether the server comes back after RESTART is not tested yet "
    "(re-detect with the restart test)"
)


def _no(name: str, detail: str) -> Capability:
    return Capability(name=name, available=False, detail=detail)


def _rows(connection: ServerConnection, sql: str, args: Any = None) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, args)
        return list(cursor.fetchall())


def _words(error: pymysql.MySQLError) -> str:
    args = error.args
    return f"({args[0]}) {args[1]}" if len(args) >= 2 else str(error)


def _try(connection: ServerConnection, *statements: str) -> str | None:
    """None when every statement succeeds, else the server's words."""
    try:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)
    except pymysql.MySQLError as error:
        return _words(error)
    return None


def global_privileges(connection: ServerConnection) -> set[str]:
    """Privileges on *.* from SHOW GRANTS (ALL PRIVILEGES kept as "ALL PRIVILEGES"), upper-case."""
    privileges: set[str] = set()
    for (line,) in _rows(connection, "SHOW GRANTS"):
        match = _GRANT.match(str(line))
        if match and match.group(2).replace("`", "") == "*.*":
            privileges |= {p.strip().upper() for p in match.group(1).split(",") if p.strip()}
    return privileges


def _variables(connection: ServerConnection, names: list[str]) -> dict[str, str]:
    placeholders = ", ".join(["%s"] * len(names))
    rows = _rows(connection, f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({placeholders})", names)
    return {str(name).lower(): str(value) for name, value in rows}


def _on(value: str | None) -> bool:
    return (value or "").upper() in {"ON", "1", "YES"}


def _restart(flavor: str, privileges: set[str], endpoint: Endpoint | None, version: str) -> Capability:
    if flavor == "mariadb":
        return Capability(name="restart", available=False, detail="MariaDB has no RESTART statement")
    if not privileges & {"SHUTDOWN", "ALL PRIVILEGES"}:
        return Capability(name="restart", available=False, detail="no SHUTDOWN privilege (RESTART needs it)")
    if endpoint is None:
        return Capability(name="restart", available=False, detail=_UNTESTED)
    refused = restart_and_wait(endpoint)
    if refused:
        return Capability(name="restart", available=False, detail=f"RESTART tried: {refused}")
    return Capability(name="restart", available=True, detail=f"RESTART tried: {version} came back")


def _set_global(connection: ServerConnection, privileges: set[str]) -> Capability:
    via = sorted(privileges & {"SYSTEM_VARIABLES_ADMIN", "SUPER", "ALL PRIVILEGES"})
    refused = _try(connection, "SET GLOBAL max_connect_errors = @@GLOBAL.max_connect_errors")
    if refused:
        return Capability(name="set_global", available=False, detail=f"SET GLOBAL refused: {refused}")
    return Capability(
        name="set_global",
        available=True,
        detail=f"SET GLOBAL allowed (via {', '.join(via) or 'a role'}): every dynamic global variable "
        "(some also need their own privilege, e.g. binary-log variables BINLOG_ADMIN)",
    )


def _alter_instance(connection: ServerConnection, flavor: str) -> Capability:
    if flavor == "mariadb":
        return _no("alter_instance", "MariaDB has no ALTER INSTANCE ... REDO_LOG")
    rows = _rows(connection, "SHOW GLOBAL STATUS LIKE 'Innodb_redo_log_enabled'")
    if not rows:
        return _no("alter_instance", "no Innodb_redo_log_enabled (MySQL < 8.0.21)")
    if not _on(str(rows[0][1])):
        return _no("alter_instance", "the redo log is off already: not tried (it would enable it)")
    refused = _try(connection, "ALTER INSTANCE ENABLE INNODB REDO_LOG")
    if refused:
        return _no("alter_instance", f"ALTER INSTANCE refused: {refused}")
    return Capability(name="alter_instance", available=True, detail="ALTER INSTANCE ... REDO_LOG allowed")


def _performance_schema(connection: ServerConnection, enabled: bool) -> list[Capability]:
    if not enabled:
        off = "performance_schema is OFF (a startup option: the lab cannot turn it on here)"
        return [
            Capability(name="performance_schema", available=False, detail=off),
            Capability(name="mutex_instruments", available=False, detail=off),
            Capability(name="waits_consumer", available=False, detail=off),
        ]
    try:
        [(total, timed)] = _rows(
            connection,
            "SELECT COUNT(*), COALESCE(SUM(ENABLED = 'YES' AND TIMED = 'YES'), 0) "
            "FROM performance_schema.setup_instruments WHERE NAME LIKE %s",
            (_MUTEX,),
        )
        consumers = dict(
            _rows(
                connection,
                "SELECT NAME, ENABLED FROM performance_schema.setup_consumers "
                "WHERE NAME IN ('global_instrumentation', 'events_waits_current')",
            )
        )
    except pymysql.MySQLError as error:
        refused = f"performance_schema tables not readable: {_words(error)}"
        return [
            Capability(name="performance_schema", available=False, detail=refused),
            Capability(name="mutex_instruments", available=False, detail=refused),
            Capability(name="waits_consumer", available=False, detail=refused),
        ]
    waits = all(consumers.get(name) == "YES" for name in ("global_instrumentation", "events_waits_current"))
    return [
        Capability(name="performance_schema", available=True, detail="performance_schema is ON"),
        Capability(
            name="mutex_instruments",
            available=int(timed) > 0,
            detail=f"{int(timed)} of {int(total)} {_MUTEX} instruments enabled and timed",
        ),
        Capability(
            name="waits_consumer",
            available=waits,
            detail=", ".join(f"{name}={consumers[name]}" for name in sorted(consumers)) or "no consumers",
        ),
    ]


def _lab_database(connection: ServerConnection, database: str | None) -> Capability:
    if not database:
        return _no("lab_database", "the target names no database of the lab's")
    refused = _try(
        connection,
        f"CREATE TABLE `{database}`.{_SCRATCH_TABLE} (id INT PRIMARY KEY)",
        f"DROP TABLE `{database}`.{_SCRATCH_TABLE}",
    )
    if refused:
        _try(connection, f"DROP TABLE IF EXISTS `{database}`.{_SCRATCH_TABLE}")
        return _no("lab_database", f"CREATE/DROP TABLE in {database}: {refused}")
    return Capability(name="lab_database", available=True, detail=f"CREATE/DROP TABLE allowed in {database}")


def _managed_service(connection: ServerConnection, basedir: str) -> str | None:
    if _rows(connection, "SHOW GLOBAL VARIABLES LIKE 'aurora_version'"):
        return "Amazon Aurora"
    if basedir.startswith("/rdsdbbin/"):
        return "Amazon RDS"
    return None


def detect(endpoint: Endpoint, *, try_restart: bool = False, read_only: bool = False) -> Capabilities:
    """Connect as the lab's user and detect every capability (module docstring).

    try_restart=True issues a real RESTART (MySQL with the SHUTDOWN privilege only) and waits for the
    server to come back. read_only=True (a target of purpose capture) sends only SELECT and SHOW:
    set_global, alter_instance, lab_database and restart are unavailable with READ_ONLY_DETAIL, and
    try_restart is ignored. Raises pymysql errors when the server cannot be reached at all.
    """
    # a port where no MySQL server listens is refused within EXISTING_CONNECT_S, naming host:port
    connection = endpoint.connect(timeout_s=EXISTING_CONNECT_S, read_timeout_s=ADMIN_READ_TIMEOUT_S)
    try:
        [(version, comment, user)] = _rows(connection, "SELECT VERSION(), @@version_comment, CURRENT_USER()")
        flavor = "mariadb" if "mariadb" in f"{version} {comment}".lower() else "mysql"
        facts = _variables(
            connection,
            ["read_only", "super_read_only", "log_bin", "secure_file_priv", "performance_schema", "basedir"],
        )
        privileges = global_privileges(connection)
        file_ok = bool(privileges & {"FILE", "ALL PRIVILEGES"})
        priv = facts.get("secure_file_priv")
        secure_file_priv = None if priv in (None, "NULL") else priv
        granted = "granted" if file_ok else "not granted"
        file_detail = f"FILE privilege {granted}; secure_file_priv={secure_file_priv}"
        # the three checks that write: never tried on a read-only target
        if read_only:
            writes = [_no(name, READ_ONLY_DETAIL) for name in _WRITE_CHECKS]
        else:
            writes = [
                _set_global(connection, privileges),
                _alter_instance(connection, flavor),
                _lab_database(connection, endpoint.database),
            ]
        checks = [
            *writes[:2],
            *_performance_schema(connection, _on(facts.get("performance_schema"))),
            Capability(name="file", available=file_ok and secure_file_priv is not None, detail=file_detail),
            writes[2],
        ]
        managed = _managed_service(connection, facts.get("basedir", ""))
    finally:
        connection.close()
    if read_only:
        restart = _no("restart", READ_ONLY_DETAIL)
    else:
        restart = _restart(flavor, privileges, endpoint if try_restart else None, str(version))
    return Capabilities(
        detected_at=datetime.now(UTC),
        user=str(user),
        flavor=flavor,
        version=str(version),
        version_comment=str(comment),
        managed_service=managed,
        read_only=_on(facts.get("read_only")),
        super_read_only=None if "super_read_only" not in facts else _on(facts["super_read_only"]),
        log_bin=_on(facts.get("log_bin")),
        secure_file_priv=secure_file_priv,
        privileges=sorted(privileges),
        checks=[restart, *checks],
    )


def keep_tested_restart(fresh: Capabilities, previous: Capabilities | None) -> Capabilities:
    """A restart that was tried and came back stays available while the privilege is still there
    (a pre-flight does not RESTART the server to find out again)."""
    if previous is None or fresh.get("restart").detail != _UNTESTED:
        return fresh
    earlier = previous.get("restart")
    if not earlier.available:
        return fresh
    checks = [earlier if check.name == "restart" else check for check in fresh.checks]
    return fresh.model_copy(update={"checks": checks})
