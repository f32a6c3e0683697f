"""The captured schema and statements tried on the check's scratch instance of the new version
(captures/check_runner.py calls it while the instance runs with the team's settings):

1. the capture's dump, its schema part only (captures/dump.py DumpRecord.schema_bytes: the first
   pass; for a capture made before, up to the data pass's own header), split into statements
   (captures/sql_text.py) and loaded (captures/schema_load.py), then what the loaded routines,
   triggers and events call asked of the new version (captures/body_calls.py);
2. its captured statements asked of the new parser (captures/statement_parse.py) on a fresh
   connection, the schema loaded, under the team's sql_mode less the values the new version
   refuses.

Both run as the dataset loader's account (datasets/accounts.py `upgradelab_load`: what a load needs
in the dump's databases only, no global privilege), made on the scratch instance by its admin; each
statement within CHECK_TIMEOUT_S (targets/statement_timeout.py), functions and triggers allowed
while it loads on a server with a binary log, events paused (an event it creates never fires here).
The statements are the team's, user input: they reach only this throw-away instance, nothing
captured is executed but the schema's DDL, and the workload only PREPAREd.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import pymysql
from pydantic import BaseModel

from upgradelab.captures.body_calls import missing_calls
from upgradelab.captures.digests import Workload
from upgradelab.captures.identifiers import parse_error
from upgradelab.captures.quoting import NewServer
from upgradelab.captures.schema_load import BODY_KINDS, Loaded, LoadFinding, LoadSummary, load
from upgradelab.captures.sql_text import bare_places, object_of, qualified, split_dump, used_database
from upgradelab.captures.statement_parse import ParseFinding, ParseSummary, parse_statements, parse_text
from upgradelab.datasets.accounts import LOAD_USER, events_paused, load_account, routines_allowed
from upgradelab.targets.provisioners.base import ADMIN_READ_TIMEOUT_S, Endpoint, ServerConnection
from upgradelab.targets.statement_timeout import StatementBound, StatementTimedOut

CHECK_TIMEOUT_S = 30.0  # one DDL statement or one PREPARE on the scratch instance
MAX_SCHEMA_BYTES = 256 * 1024 * 1024  # the dump's schema part read at most (captures/dump.py SCHEMA_ROOM)
INTERRUPTED = 1317  # ER_QUERY_INTERRUPTED: how a statement past its bound reads to schema_load
# where the second pass of captures/dump.py write_dump starts: the dump client's own header again
_DATA_PASS = re.compile(rb"\n-- (?:MariaDB|MySQL) dump ")


class SchemaTrial(BaseModel):
    """What the trial did (capture_check.schema_load): the schema's `load` and the statements'
    parse (`statements`), each with what it could not ask and why."""

    load: LoadSummary
    statements: ParseSummary


@dataclass
class TrialResult:
    """The findings of both steps and their summary."""

    load_findings: list[LoadFinding] = field(default_factory=list)
    parse_findings: list[ParseFinding] = field(default_factory=list)
    trial: SchemaTrial = field(
        default_factory=lambda: SchemaTrial(load=LoadSummary(), statements=ParseSummary())
    )


def schema_text(path: Path, schema_bytes: int | None) -> str:
    """The schema part of the capture's dump at `path` (module docstring), decoded as UTF-8 (a byte
    that is not is replaced: the server sees what the client would have sent of it)."""
    with path.open("rb") as dump:
        raw = dump.read(min(schema_bytes, MAX_SCHEMA_BYTES) if schema_bytes is not None else MAX_SCHEMA_BYTES)
    if schema_bytes is None:
        second = _DATA_PASS.search(raw, 1)
        raw = raw[: second.start() + 1] if second else raw
    return raw.decode("utf-8", "replace")


class _Bounded:
    """The check's account's statements, each within CHECK_TIMEOUT_S; a statement past it raises
    as the server's ER_QUERY_INTERRUPTED would (the lab's bound, never the new version's refusal)."""

    def __init__(self, bound: StatementBound) -> None:
        self.bound = bound

    def __call__(self, sql: str) -> None:
        try:
            self.bound.run(sql)
        except StatementTimedOut as late:
            raise pymysql.err.OperationalError(INTERRUPTED, f"{late} (the check's bound)") from None


def try_schema(
    admin: ServerConnection,
    endpoint: Endpoint,
    flavor: str,
    server: str,
    *,
    dump: str | None,
    dump_error: str | None,
    databases: list[str],
    workload: Workload | None,
    sql_mode: str | None,
    names: frozenset[str] = frozenset(),
    cancelled: Callable[[], bool] = lambda: False,
) -> TrialResult:
    """Load the schema `dump` (its text: schema_text; None with `dump_error` saying why there is
    none) holding `databases` and ask the `workload`'s statements (module docstring) on the scratch
    instance at `endpoint` (its admin connection `admin`, `flavor` of the new server, named `server`
    in the findings); `sql_mode`: the team's less the values the new version refuses (None: the
    instance's own); `names`: the captured schema's names (lower case: a quote is advised for
    these even where the statement still fails). Raises the server's error when the account
    cannot be made."""
    result = TrialResult()

    @cache
    def reserved(word: str) -> bool:
        return parse_error(admin, "column", word) is not None

    new = NewServer(server, flavor, reserved, names)
    password = load_account(admin, databases)
    account = replace(endpoint, user=LOAD_USER, password=password, database=None)

    def connect() -> StatementBound:
        connection = account.connect(read_timeout_s=CHECK_TIMEOUT_S + ADMIN_READ_TIMEOUT_S)
        bound = StatementBound(
            connection, CHECK_TIMEOUT_S, flavor, lambda: endpoint.connect(read_timeout_s=ADMIN_READ_TIMEOUT_S)
        )
        bound.apply()
        return bound

    loaded = Loaded()
    if dump is None:
        result.trial.load.error = f"no schema to load: {dump_error or 'the capture holds no dump'}"
    else:
        bound = connect()
        try:
            with routines_allowed(admin), events_paused(admin):
                loaded = load(_Bounded(bound), split_dump(dump), new, cancelled)
            loaded.findings += missing_calls(bound, loaded, new)  # what the loaded bodies call
        finally:
            bound.connection.close()
        result.load_findings, result.trial.load = loaded.findings, loaded.summary
    if workload is None or not workload.digests:
        result.trial.statements.error = "no statement captured"
        _workload_said(result.trial.statements, workload)
        return result
    if cancelled():
        result.trial.statements.error = "cancelled"
        return result
    bound = connect()
    try:
        if sql_mode is not None:
            try:
                bound.run("SET SESSION sql_mode = %s", (sql_mode,))
            except pymysql.MySQLError as refused:
                result.trial.statements.error = (
                    f"the team's sql_mode not set (the instance's own used): {refused}"
                )
        default = databases[0] if databases else None
        found, summary = parse_statements(bound, workload, loaded, new, default)
    finally:
        bound.connection.close()
    summary.error = summary.error or result.trial.statements.error
    _workload_said(summary, workload)
    result.parse_findings, result.trial.statements = found, summary
    return result


def _workload_said(summary: ParseSummary, workload: Workload | None) -> None:
    """The captured workload's problems, emptiness and replayable digests, as the capture judged them."""
    if workload is not None:
        summary.workload_problems, summary.empty = list(workload.problems), workload.empty
        summary.replayable = workload.replayable


def unquoted_places(
    words: list[str], dump: str | None, workload: Workload | None, limit: int = 200
) -> dict[str, list[str]]:
    """{word (lower case): where it stands unquoted as a name} in the team's own SQL: the bodies of
    the dump's views, routines, triggers and events ("procedure app.p line 3") and the captured
    statements ("statement <digest> line 1"); at most `limit` places a word."""
    found: dict[str, list[str]] = {word.lower(): [] for word in words}
    if not found:
        return found
    texts: list[tuple[str, str]] = []
    database = None
    for statement in split_dump(dump or ""):
        what = object_of(statement.text)
        database = used_database(statement.text) or database
        if what is not None and what.verb == "create" and what.kind in BODY_KINDS:
            texts.append((f"{what.kind} {qualified(what.name, database)}", statement.text))
    for digest in workload.digests if workload else []:
        text = parse_text(digest)
        if text is not None:
            texts.append((f"statement {(digest.digest or '-')[:16]}", text))
    for word, places in found.items():
        for where, text in texts:
            lines = sorted({token.line for token in bare_places(text, word)})
            if lines and len(places) < limit:
                places.append(f"{where} line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}")
    return found
