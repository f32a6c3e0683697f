"""What a statement does to its session's transaction, read from its text as a server reads it:
BEGIN / START TRANSACTION, COMMIT / ROLLBACK (not ROLLBACK TO SAVEPOINT), `SET autocommit = 0|1`,
and the statements that commit implicitly (`IMPLICIT_COMMIT`); `DATA_KINDS` are a transaction of
their own in autocommit mode. Leading comments are skipped (not version comments: a server runs
them)."""

import re

from upgradelab.measurement.session_shapes import Boundary

# statements whose run commits the transaction open before them (MySQL manual, "Statements That
# Cause an Implicit Commit": the common ones; CREATE / DROP TEMPORARY TABLE do not)
IMPLICIT_COMMIT = frozenset(
    {
        "create",
        "alter",
        "drop",
        "rename",
        "truncate",
        "lock",
        "grant",
        "revoke",
        "analyze",
        "optimize",
        "repair",
    }
)
# statements that are a transaction of their own in autocommit mode
DATA_KINDS = frozenset(
    {"select", "insert", "update", "delete", "replace", "with", "call", "load", "table", "values"}
)

_A = re.ASCII | re.IGNORECASE
_LEADING = re.compile(r"\A(?:\s+|/\*(?!!|M!).*?\*/|--[^\n]*\n|#[^\n]*\n)*", re.DOTALL)
_WORD = re.compile(r"[a-z]+", _A)
_BEGIN = re.compile(r"\A(?:begin(?:\s+work)?|start\s+transaction\b[^;]*)\s*;?\s*\Z", _A)
_END = re.compile(
    r"\A(commit|rollback)(?:\s+work)?(?:\s+and\s+(?:no\s+)?chain)?(?:\s+(?:no\s+)?release)?\s*;?\s*\Z", _A
)
_AUTOCOMMIT = re.compile(r"\bautocommit\s*=\s*(0|1|on|off|true|false)\b", _A)
_TEMPORARY = re.compile(r"\A(?:create|drop)\s+temporary\b", _A)


def statement_kind(sql: str) -> tuple[str, str]:
    """The statement without its leading comments, and its first keyword lower-cased ("" when none)."""
    text = _LEADING.sub("", sql, count=1)
    word = _WORD.match(text)
    return text, word[0].lower() if word else ""


def boundary(sql: str) -> tuple[Boundary | None, str]:
    """What the statement does to its session's transaction (None: nothing of itself), and its
    first keyword."""
    text, kind = statement_kind(sql)
    if kind in ("begin", "start") and _BEGIN.match(text):
        return "begin", kind
    if kind in ("commit", "rollback") and (end := _END.match(text)):
        return ("commit" if end[1].lower() == "commit" else "rollback"), kind
    if kind == "set" and (found := _AUTOCOMMIT.search(text)):
        return ("autocommit_on" if found[1].lower() in ("1", "on", "true") else "autocommit_off"), kind
    if kind in IMPLICIT_COMMIT and not _TEMPORARY.match(text):
        return "implicit_commit", kind
    return None, kind
