"""The lab's own servers' slow and general logs, with every verbosity option, read as
pt-query-digest reads them (issue 47): the same events, databases, header fields, fingerprints and
classes as the installed pt-query-digest, and the statements a seeded session ran, each whole, no
header line among them.

Options: MariaDB 10.11 and 11.8 log_slow_verbosity none, innodb, query_plan, explain, engine,
warnings, full, all and query_plan,explain,innodb (with log_slow_admin_statements ON); MySQL 9.7
log_slow_extra OFF and ON, log_timestamps UTC and SYSTEM, log_slow_admin_statements and
log_queries_not_using_indexes ON; each server's general log. A mismatch fails naming the log and
the statement."""

from pathlib import Path
from typing import Literal

import pytest

from tests import ports
from tests.conftest import lab_provisioner
from tests.replay.querylog.pt_oracle import event_mismatches, lab_classes, pt_classes, pt_events
from tests.replay.querylog.workload import SENTINEL, SETUP, as_logged, run_session
from upgradelab.measurement.querylog.events import LogEvent
from upgradelab.measurement.querylog.formats import open_log, read_events
from upgradelab.measurement.sources import parse_source
from upgradelab.targets.provisioners.base import Endpoint
from upgradelab.targets.provisioners.local import LocalProvisioner
from upgradelab.workloads.sql import execute

MARIADB_VERBOSITY = [
    "",
    "innodb",
    "query_plan",
    "explain",
    "engine",
    "warnings",
    "full",
    "all",
    "query_plan,explain,innodb",
]
Log = tuple[Literal["slow", "general"], dict[str, str]]
MARIADB: list[Log] = [
    ("slow", {"log_slow_verbosity": f"'{v}'", "log_slow_admin_statements": "ON"}) for v in MARIADB_VERBOSITY
]
MYSQL_SLOW = {"log_slow_admin_statements": "ON", "log_queries_not_using_indexes": "ON"}
OPTIONS: dict[str, list[Log]] = {
    "mariadb-10.11": [*MARIADB, ("general", {})],
    "mariadb-11.8": [*MARIADB, ("general", {})],
    "mysql-9.7": [
        ("slow", {**MYSQL_SLOW, "log_slow_extra": "OFF", "log_timestamps": "'UTC'"}),
        ("slow", {**MYSQL_SLOW, "log_slow_extra": "ON", "log_timestamps": "'UTC'"}),
        ("slow", {**MYSQL_SLOW, "log_slow_extra": "ON", "log_timestamps": "'SYSTEM'"}),
        ("general", {"log_timestamps": "'UTC'"}),
        ("general", {"log_timestamps": "'SYSTEM'"}),
    ],
}


def _write_log(
    provisioner: LocalProvisioner,
    endpoint: Endpoint,
    fmt: str,
    options: dict[str, str],
    seed: int,
    into: Path,
) -> tuple[Path, int, list[str]]:
    """One log of `fmt` with `options` set globally, holding a seeded session: (the log's copy,
    the session's thread id, what it ran)."""
    admin = endpoint.connect()
    inner = f"{provisioner.inner_dir}/{fmt}-{seed}.log"
    switch = "general_log" if fmt == "general" else "slow_query_log"
    settings = [f"SET GLOBAL {name} = {value}" for name, value in options.items()]
    execute(admin, *settings, f"SET GLOBAL {switch}_file = '{inner}'", f"SET GLOBAL {switch} = ON")
    app = endpoint.connect(database="shop")  # a new session: long_query_time 0 and the options
    try:
        thread: int = app.thread_id()  # type: ignore[no-untyped-call]
        ran = run_session(app, seed)
    finally:
        app.close()
        execute(admin, f"SET GLOBAL {switch} = OFF")
        admin.close()
    copy = into / f"{provisioner.target_name}-{fmt}-{seed}.log"
    copy.write_bytes((provisioner.root / inner.lstrip("/")).read_bytes())
    return copy, thread, ran


def _session(events: list[LogEvent], thread: int) -> list[str]:
    """The session's statements as logged: pymysql's own `SET NAMES` at connect and the sentinel
    (whose entry may be missing) left out."""
    out = [e.text for e in events if e.is_statement and e.thread_id == thread]
    while out and out[0].startswith("SET NAMES"):
        out.pop(0)
    return out[:-1] if out and out[-1] == SENTINEL else out


def _differences(what: str, got: list[str], wanted: list[str]) -> list[str]:
    """The first difference of two statement lists, named, or none."""
    for index, (one, other) in enumerate(zip(got, wanted, strict=False)):
        if one != other:
            return [f"{what}: #{index} {one!r}, expected {other!r}"]
    if len(got) != len(wanted):
        return [f"{what}: {len(got)}, expected {len(wanted)} (last: {got[-1:]!r} / {wanted[-1:]!r})"]
    return []


def _mismatches(
    log: Path, fmt: Literal["slow", "general"], thread: int, ran: list[str], flavor: str
) -> list[str]:
    with open_log(log) as stream:
        events = list(read_events(stream, fmt))
    failures = event_mismatches(events, pt_events(log, fmt), fmt, log)
    classes = lab_classes(events, fmt)
    theirs = {key: one["query_count"] for key, one in pt_classes(log, fmt).items()}
    if classes != theirs:
        failures.append(f"classes {classes}, pt-query-digest: {theirs}")
    failures += _differences(
        "the session's statements", _session(events, thread), as_logged(ran, fmt, flavor)
    )
    statements = parse_source(log.read_text(errors="surrogateescape"), sample=10**6, allow_writes=True)
    logged = [e.text.strip().rstrip(";").strip() for e in events if e.is_statement]
    wanted = [sql for sql in logged if not sql.upper().startswith("USE ")]
    failures += _differences("parse_source's statements", [s.sql for s in statements.statements], wanted)
    headers = [s.sql for s in statements.statements if s.sql.startswith(("#", "SET timestamp", "use "))]
    if headers:
        failures.append(f"header lines read as statements: {headers}")
    return [f"{log.name}: {failure}" for failure in failures]


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_log_of_the_server_reads_as_pt_query_digest_reads_it(
    name: str, database: None, tmp_path: Path
) -> None:
    provisioner = lab_provisioner(name, ports.UNIT_TARGETS[name], suffix="querylog")
    flavor = "mysql" if name.startswith("mysql") else "mariadb"
    failures: list[str] = []
    try:
        endpoint = provisioner.start([])
        admin = endpoint.connect()
        execute(admin, *SETUP, "SET GLOBAL long_query_time = 0")
        admin.close()
        for seed, (fmt, options) in enumerate(OPTIONS[name]):
            log, thread, ran = _write_log(provisioner, endpoint, fmt, options, seed, tmp_path)
            failures += _mismatches(log, fmt, thread, ran, flavor)
    finally:
        provisioner.stop()
    assert not failures, "\n".join(failures)
