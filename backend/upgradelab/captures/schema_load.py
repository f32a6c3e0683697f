"""The captured schema loaded on the new version: every statement of the capture's dump that defines
something (CREATE, ALTER, DROP, RENAME, and the SET and USE around them; rows and the rest are not
sent: DDL only) sent one at a time, in the dump's order, on the check's scratch instance, and each
one it refuses named with the statement and the server's words.

A refusal (captures/refusals.py) is a finding, "no longer loads" (a table, sequence, database,
SET...) or "no longer parses" (the body of a view, routine, trigger or event the parser refused),
grouped by the object it defines (a sequence's DROP and CREATE are one finding); refused for the
lab's reason (a privilege the check's account lacks, a statement that is a comment to this server)
or because an object it needs is not there it is no finding: what it needs, when that object's own
statement was refused, is listed under that finding ("also"); else it is listed "not loaded" with
the reason (the dump does not hold it).

A parse refusal near a word the new server reserves is tried again with that word quoted
(captures/quoting.py): when the server then takes it, the finding's action is "quote `qualify` in
these 3 places", proven on the server (the object is then loaded, so what needs it is asked too).
Every other refusal gets the action its words call for (refusals.action_for).

`load` is the procedure over a `run(sql)` that raises the server's pymysql error; where it runs
(the account, the bound, the scratch instance) is captures/schema_trial.py.
"""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

import pymysql
from pydantic import BaseModel

from upgradelab.captures.quoting import NewServer, QuotedWord, Run, quote_action, quote_until_taken
from upgradelab.captures.refusals import action_for, classify, missing_name, words_of
from upgradelab.captures.sql_text import (
    DumpStatement,
    first_word,
    head,
    object_of,
    qualified,
    used_database,
)
from upgradelab.datasets.statements import DEFINER, definer_rewritten

Outcome = Literal["no_longer_loads", "no_longer_parses"]
DDL_WORDS = frozenset({"CREATE", "ALTER", "DROP", "RENAME", "SET", "USE"})
BODY_KINDS = frozenset({"view", "procedure", "function", "trigger", "event", "package"})
# bodies whose names resolve when they run, not when they are created (a view's resolve at CREATE)
RUN_KINDS = frozenset({"procedure", "function", "trigger", "event", "package"})
# a SET that acts on the server, not the session (mysqldump's GTID_PURGED, SQL_LOG_BIN): the dump's
# replication bookkeeping, never the schema; it needs privileges the check's account does not hold
_SERVER_SET = re.compile(
    r"^SET\s+(?:GLOBAL|PERSIST|PERSIST_ONLY)\b|@@GLOBAL\.|\bSQL_LOG_BIN\b|\bGTID_PURGED\b", re.I
)
_VARIABLE_NAMED = re.compile(r"Variable '(\w+)'")
_BODY_AT = re.compile(rb"\b(?:VIEW|PROCEDURE|FUNCTION|TRIGGER|EVENT|PACKAGE)\b", re.I)
MAX_LOAD_STATEMENTS = 50_000  # a schema past this is loaded that far (said in the summary)
SHOWN_CHARS = 4000  # a statement shown in a finding is cut here (marked)
MAX_NOT_LOADED = 200  # "not loaded" statements listed (all counted)


class LoadFinding(BaseModel):
    """A statement of the captured schema the new version refuses: the object it defines (`kind`
    table, sequence, view, procedure, function, trigger, event, database, index, package, or
    `statement` for a SET or another statement naming none; `name` schema-qualified), `outcome`,
    the first refused `statement` (cut at SHOWN_CHARS) with its dump `line` and the server's
    `words`; `quoted` the words that, quoted, make the new server take it (`loads_quoted`: tried
    and taken); `also` the object's other refused statements and the statements that need it;
    `times`: how many identical statements were refused (a SET before each routine); `action`."""

    kind: str
    name: str | None
    outcome: Outcome
    statement: str
    line: int
    words: str
    quoted: list[QuotedWord] = []
    loads_quoted: bool = False
    also: list[str] = []
    times: int = 1
    action: str = ""


class NotLoaded(BaseModel):
    """A statement not loaded for a reason that is not the new version's: its `statement` (start),
    dump `line`, the server's `words` and the `reason`."""

    statement: str
    line: int
    words: str
    reason: str


class LoadSummary(BaseModel):
    """What the load did: DDL `statements` sent, `loaded`, `refused` (in findings), `skipped`
    (rows and other statements not sent), `not_loaded` (no finding: the reason; at most
    MAX_NOT_LOADED listed, `not_loaded_count` all), `error` when it could not load at all or stopped."""

    statements: int = 0
    loaded: int = 0
    refused: int = 0
    skipped: int = 0
    not_loaded: list[NotLoaded] = []
    not_loaded_count: int = 0
    error: str | None = None


@dataclass
class Loaded:
    """A load's findings and summary, and what the statement parse needs of it: the names of the
    refused objects (lower case, qualified and not), the dump's own routines (lower case) and the
    bodies that loaded (routines, triggers, events: their kind, qualified name, database and
    statement; captures/body_calls.py asks what they call)."""

    findings: list[LoadFinding] = field(default_factory=list)
    summary: LoadSummary = field(default_factory=LoadSummary)
    refused_names: dict[str, LoadFinding] = field(default_factory=dict)
    own_routines: frozenset[str] = frozenset()
    bodies: list[tuple[str, str, str | None, DumpStatement]] = field(default_factory=list)


def definer_free(text: str) -> str:
    """`text` with the DEFINER clause before its body (a view's, routine's, trigger's, event's)
    rewritten to CURRENT_USER (datasets/statements.py): the check's account creates it as itself."""
    raw = text.encode()
    body = _BODY_AT.search(raw)
    end = body.start() if body else len(raw)
    return DEFINER.sub(lambda match: definer_rewritten(match.group(0)), raw[:end]).decode() + text[end:]


def _own_routines(statements: list[DumpStatement]) -> frozenset[str]:
    names = set()
    for statement in statements:
        found = object_of(statement.text)
        if found and found.verb == "create" and found.kind in ("function", "procedure", "package"):
            names.add(found.name.rsplit(".", 1)[-1].lower())
    return frozenset(names)


def load(
    run: Run,
    statements: Iterable[DumpStatement],
    server: NewServer,
    cancelled: Callable[[], bool] = lambda: False,
) -> Loaded:
    """Send the DDL of `statements` through `run` (module docstring) and name what the new `server`
    refuses. Stops (summary.error) past MAX_LOAD_STATEMENTS or once `cancelled()`."""
    listed = list(statements)
    loaded = Loaded(own_routines=_own_routines(listed))
    summary = loaded.summary
    by_key: dict[tuple[str, str], LoadFinding] = {}
    database: str | None = None
    setting: LoadFinding | None = None  # a session SET refused: the objects after it are made without it
    for statement in listed:
        word = first_word(statement.text)
        if word not in DDL_WORDS or (word == "SET" and _SERVER_SET.search(head(statement.text))):
            summary.skipped += 1
            continue
        if summary.statements >= MAX_LOAD_STATEMENTS or cancelled():
            stopped = f"stopped after {MAX_LOAD_STATEMENTS} statements: the rest not loaded"
            summary.error = "cancelled" if cancelled() else stopped
            break
        summary.statements += 1
        text = definer_free(statement.text)
        try:
            run(text)
        except pymysql.MySQLError as error:
            refused = _refused(loaded, by_key, statement, text, error, database, run, server)
            setting = refused if word == "SET" and refused is not None else setting
            continue
        summary.loaded += 1
        if word == "USE":
            database = used_database(statement.text) or database
        elif word == "SET" and setting is not None and _same_variable(setting.words, statement.text):
            setting = None  # the dump sets it again (its saved value): what follows has it
        elif (made := object_of(statement.text)) and made.verb == "create":
            if setting is not None:
                setting.also.append(f"created without it: {made.kind} {qualified(made.name, database)}")
            if made.kind in RUN_KINDS:
                loaded.bodies.append((made.kind, qualified(made.name, database), database, statement))
    loaded.findings = list(by_key.values())
    return loaded


def _refused(
    loaded: Loaded,
    by_key: dict[tuple[str, str], LoadFinding],
    statement: DumpStatement,
    text: str,
    error: pymysql.MySQLError,
    database: str | None,
    run: Run,
    server: NewServer,
) -> LoadFinding | None:
    """One refused statement (module docstring): a finding (returned), a line under another's, or
    not loaded (None)."""
    code, words = words_of(error)
    kind = classify(code, words, loaded.own_routines)
    summary = loaded.summary
    shown = _shown(statement.text)
    if kind in ("lab", "missing"):
        needed = missing_name(words) if kind == "missing" else None
        cause = _cause(loaded.refused_names, needed, database)
        if cause is not None:
            cause.also.append(f"needs it, not loaded: {_where(statement)}: {words}")
            made = object_of(statement.text)  # what needs it is missing for the same reason
            if made is not None and made.verb == "create":
                loaded.refused_names.setdefault(qualified(made.name, database).lower(), cause)
            return None
        why = (
            f"needs {needed}, which the dump does not hold (a temporary table, a database left out)"
            if kind == "missing"
            else "the lab's account or protocol, not the new version (a privilege it lacks, a comment here)"
        )
        summary.not_loaded_count += 1
        if len(summary.not_loaded) < MAX_NOT_LOADED:
            summary.not_loaded.append(
                NotLoaded(statement=head(statement.text, 200), line=statement.line, words=words, reason=why)
            )
        return None
    summary.refused += 1
    found = object_of(statement.text)
    name = qualified(found.name, database) if found else None
    flat = " ".join(statement.text.split()).lower()
    key = (found.kind, name.lower()) if found and name else ("statement", flat)
    known = by_key.get(key)
    if known is not None:
        if known.statement == shown:
            known.times += 1
            return known
        first = object_of(known.statement)
        if found and found.verb == "create" and first is not None and first.verb != "create":
            # the object's CREATE is what the finding shows; its DROP goes under it
            earlier = DumpStatement(known.statement, known.line)
            known.also.append(f"also refused: {_where(earlier)}: {known.words}")
            known.statement, known.line, known.words = shown, statement.line, words
            known.outcome = _outcome(kind, found.kind)
            known.action = _action(known, words, statement.text, server)
            return known
        known.also.append(f"also refused: {_where(statement)}: {words}")
        return known
    object_kind = found.kind if found else "statement"
    finding = LoadFinding(
        kind=object_kind,
        name=name,
        outcome=_outcome(kind, object_kind),
        statement=shown,
        line=statement.line,
        words=words,
    )
    if kind == "parse":
        finding.quoted, finding.loads_quoted, last = quote_until_taken(run, text, words, server)
    else:
        last = words
    finding.action = _action(finding, last, statement.text, server)
    by_key[key] = finding
    if name:
        loaded.refused_names[name.lower()] = finding
        loaded.refused_names.setdefault(name.rsplit(".", 1)[-1].lower(), finding)
    return finding


def _same_variable(words: str, statement: str) -> bool:
    """Whether `statement` (a SET) sets the variable a refused SET's `words` name (any SET, when
    the words name none)."""
    named = _VARIABLE_NAMED.search(words)
    return named is None or named.group(1).lower() in head(statement).lower()


def _outcome(refusal: str, kind: str) -> Outcome:
    return "no_longer_parses" if refusal == "parse" and kind in BODY_KINDS else "no_longer_loads"


def _cause(refused: dict[str, LoadFinding], needed: str | None, database: str | None) -> LoadFinding | None:
    if needed is None:
        return None
    needed = needed.lower()
    return refused.get(needed) or refused.get(qualified(needed, database).lower())


def _where(statement: DumpStatement) -> str:
    return f"{head(statement.text, 160)} (line {statement.line})"


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + " ... (cut)"


def _action(finding: LoadFinding, last: str, statement: str, server: NewServer) -> str:
    """The finding's one line: the quotes that make it load (proven), else the refusal's own."""
    what = f"{finding.kind} {finding.name}" if finding.name else "this statement"
    if finding.quoted:
        then = action_for(last, statement, server.name, server.flavor, what)
        return quote_action(finding.quoted, finding.loads_quoted, what, server.name, then)
    return action_for(finding.words, statement, server.name, server.flavor, what)
