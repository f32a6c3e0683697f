"""Statement fingerprints: one query class per shape, as pt-fingerprint and performance_schema's
statement digest group them.

Tokens come from sqlparse (quotes, comments and numbers recognised by a real lexer, not regexes over
raw text); then, as pt-fingerprint does: comments dropped, string and number literals -> `?`,
keywords and names lower-cased, whitespace collapsed, `IN (?, ?, ...)` -> `in(?+)` and a multi-row
`VALUES (...), (...)` -> `values(?+)`; no space inside parentheses or before commas. The id is
the first 16 hex digits of the fingerprint's sha256.
"""

import hashlib
import re

import sqlparse
from sqlparse import tokens as T
from sqlparse.sql import Token

# Tokens are joined with single spaces, so the patterns below see "in ( ? , ? )".
_IN_LIST = re.compile(r"\bin \( \?(?: , \?)* \)")
_ROW = r"\( [^()]* \)"
_VALUES_ROWS = re.compile(rf"\bvalues {_ROW}(?: , {_ROW})*")
_DOT = re.compile(r" ?\. ?")
# then, for reading: no space inside parentheses or before a comma ("count (*)", "concat (a, ?)")
_INSIDE_PARENS = re.compile(r"\( | \)")
_BEFORE_COMMA = re.compile(r" ,")

READ_ONLY_KINDS = frozenset({"select", "with", "show", "explain", "describe", "desc", "values", "table"})


def _tokens(sql: str) -> list[Token]:
    """sqlparse's leaf tokens of the first statement in `sql` ([] for blank text)."""
    if not sql.strip():
        return []
    return list(sqlparse.parse(sql)[0].flatten())  # type: ignore[no-untyped-call]


def fingerprint(sql: str) -> str:
    """The normalized text of a statement (see module docstring)."""
    parts: list[str] = []
    for token in _tokens(sql):
        if token.is_whitespace or token.ttype in T.Comment:
            continue
        if token.ttype in T.Literal.String or token.ttype in T.Literal.Number:
            parts.append("?")
        elif token.ttype in T.Name and token.value.startswith("`"):
            parts.append(token.value.strip("`").lower())
        else:
            parts.append(token.value.lower())
    while parts and parts[-1] == ";":
        parts.pop()
    text = _IN_LIST.sub("in(?+)", " ".join(parts))
    text = _VALUES_ROWS.sub("values(?+)", text)
    text = _DOT.sub(".", text)
    return _BEFORE_COMMA.sub(",", _INSIDE_PARENS.sub(lambda m: m.group(0).strip(), text))


def fingerprint_id(text: str) -> str:
    """16 hex digits identifying a fingerprint."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def statement_kind(sql: str) -> str:
    """The statement's first keyword, lower-cased ("select", "insert", ...); "" when none."""
    for token in _tokens(sql):
        if token.is_whitespace or token.ttype in T.Comment or token.ttype in T.Punctuation:
            continue
        return str(token.value).lower()
    return ""


def is_read_only(sql: str) -> bool:
    """True for statements that only read: SELECT / WITH ... SELECT / SHOW / EXPLAIN / DESCRIBE,
    without `FOR UPDATE`, `LOCK IN SHARE MODE` or `INTO` a file/variables (those lock or write)."""
    kind = statement_kind(sql)
    if kind not in READ_ONLY_KINDS:
        return False
    text = fingerprint(sql)
    if kind == "with" and re.search(r"\b(insert|update|delete|replace)\b", text):
        return False
    return not re.search(r"\bfor update\b|\block in share mode\b|\binto (outfile|dumpfile|@)", text)
