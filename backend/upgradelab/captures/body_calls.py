"""The functions a loaded body calls, asked of the new version: a routine's, trigger's or event's
body is parsed when it is created, but the functions it calls are looked up only when it runs (MySQL
9.7 creates a procedure calling MD5() and refuses the call: ERROR 1305), so a body that loaded may
still fail at every run. A view's calls are looked up at its CREATE (the load's finding).

Each word of a loaded body that stands before `(` as a call (captures/sql_text.py tokens: not after
a `.`, which qualifies another schema's function, nor after a word that makes it a table, index or
routine name: INTO, TABLE, JOIN, FROM, UPDATE, REFERENCES, KEY, INDEX, ON, USING, CALL, and the
body's own PROCEDURE/FUNCTION name) and is not one of the dump's own routines is asked once of the
new parser in the body's database: `PREPARE upgradelab_parse FROM 'SELECT word()'` (never run). Only
ER_SP_DOES_NOT_EXIST ("FUNCTION db.word does not exist": no native function and no stored one of
that name) is a finding; a keyword before `(` is a parse error and a native function's wrong argument
count ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, neither a finding. Each body with such a call is one
"no longer parses" finding (does_not_load) naming the calls and their lines, with the action for the
first (refusals.action_for).
"""

from pydantic import BaseModel

from upgradelab.captures.quoting import NewServer
from upgradelab.captures.refusals import action_for, words_of
from upgradelab.captures.schema_load import Loaded, LoadFinding
from upgradelab.captures.sql_text import tokens
from upgradelab.captures.statement_parse import prepare_refusal, use_database
from upgradelab.targets.statement_timeout import StatementBound, StatementTimedOut

SP_DOES_NOT_EXIST = 1305
_NAMING = frozenset(
    {"INTO", "TABLE", "JOIN", "FROM", "UPDATE", "REFERENCES", "KEY", "INDEX", "ON", "USING", "CALL"}
    | {"PROCEDURE", "FUNCTION", "TRIGGER", "EVENT", "VIEW", "PACKAGE", "BODY", "EXISTS", "NOT"}
)
MAX_ASKED = 2000  # distinct (database, word) asked; a larger schema's rest is not asked


class Call(BaseModel):
    """A call a body makes: the function `name` as written and the body's `lines` (1-based) with it."""

    name: str
    lines: list[int]


def calls(text: str) -> list[Call]:
    """The calls of a body's statement `text` (module docstring), each name once, in order."""
    found: dict[str, Call] = {}
    listed = [token for token in tokens(text) if token.kind not in ("ws", "line", "block", "open", "close")]
    for index, token in enumerate(listed[:-1]):
        if token.kind != "word" or listed[index + 1].text != "(":
            continue
        before = listed[index - 1] if index else None
        if before is not None and (before.text == "." or before.text.upper() in _NAMING):
            continue
        call = found.setdefault(token.text.lower(), Call(name=token.text, lines=[]))
        if token.line not in call.lines:
            call.lines.append(token.line)
    return list(found.values())


def missing_calls(bound: StatementBound, loaded: Loaded, server: NewServer) -> list[LoadFinding]:
    """A finding for each loaded body (Loaded.bodies) that calls a function the new version has
    neither natively nor among the dump's routines (module docstring), on `bound`'s connection."""
    answers: dict[tuple[str | None, str], str | None] = {}
    found: list[LoadFinding] = []
    for kind, name, database, statement in loaded.bodies:
        missing: list[tuple[Call, str]] = []
        for call in calls(statement.text):
            if call.name.lower() in loaded.own_routines:
                continue
            key = (database, call.name.lower())
            if key not in answers:
                if len(answers) >= MAX_ASKED:
                    continue
                answers[key] = _missing(bound, database, call.name)
            words = answers[key]
            if words is not None:
                missing.append((call, words))
        if missing:
            found.append(_finding(kind, name, statement.text, statement.line, missing, server))
    return found


def _missing(bound: StatementBound, database: str | None, name: str) -> str | None:
    """The new server's words when it has no function `name` (ER_SP_DOES_NOT_EXIST), else None."""
    use_database(bound, database)
    try:
        error = prepare_refusal(bound, f"SELECT {name}()")
    except StatementTimedOut:
        return None
    if error is None:
        return None
    code, words = words_of(error)
    return words if code == SP_DOES_NOT_EXIST else None


def _finding(
    kind: str, name: str, text: str, line: int, missing: list[tuple[Call, str]], server: NewServer
) -> LoadFinding:
    where = "; ".join(
        f"{call.name}() at line{'s' if len(call.lines) > 1 else ''} {', '.join(map(str, call.lines))}"
        for call, _ in missing
    )
    words = f"{missing[0][1]} (the body loads; its calls fail when it runs: {where})"
    what = f"{kind} {name}"
    return LoadFinding(
        kind=kind,
        name=name,
        outcome="no_longer_parses",
        statement=text if len(text) <= 4000 else text[:4000] + " ... (cut)",
        line=line,
        words=words,
        action=action_for(missing[0][1], text, server.name, server.flavor, what),
    )
