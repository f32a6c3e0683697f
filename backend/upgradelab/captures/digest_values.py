"""A digest text's placeholders bound to values of the captured server's own data, so a workload
that server kept as digest texts only still gives a replay.

Why: MariaDB keeps no statement text per digest (no QUERY_SAMPLE_TEXT), and its statement history's
consumers are off by default (`events_statements_current`, `_history`, `_history_long`: FALSE in
10.11's and 11.8's `mariadbd --verbose --help`), so a staging server captured as the team left it
holds every digest as DIGEST_TEXT, `?` for each literal and `(...)` for each list: not executable,
and the query set a replay takes (captures/digests.py query_set) was empty ("no workload"). The
capture cannot turn the consumers on (it is read-only on the team's server); it can read, in the
tables the statement names, one value of each column a placeholder is compared with, as the team's
own data holds it, and put it where the literal was.

What is bound (every other placeholder leaves the digest unbound: not replayed, counted):
- `<column> <op> ?` (=, <=>, <>, !=, <, <=, >, >=, LIKE, NOT LIKE), `<column> [NOT] IN (...)`
  (one value: `IN (v)`), `<column> [NOT] BETWEEN ? AND ?` (the same value twice): the column is
  read in the statement's tables (its qualifier's table or alias first), `SELECT <column> FROM
  <schema>.<table> WHERE <column> IS NOT NULL LIMIT 1`, within READ_TIMEOUT_S, for bare names only
  (captures/identifiers.py bare; backquoted), at most MAX_READS columns per capture;
- `LIMIT ?`, `LIMIT ?, ?`, `OFFSET ?`: LIMIT_ROWS rows, offset 0 (the digest keeps neither).
A value is the server's, rendered as a literal by the connector (pymysql's escaping). A digest text
the server cut (it ends in `...`: performance_schema_max_digest_length) is never bound.

The texts are data: a digest text is parsed here (captures/sql_text.py tokens), never executed on
the lab's host; the bound text runs on lab servers only, in a replay, through its read-only filter.
What the replay measures is the statement's shape with one real value per column: a plan that
depends on a value's selectivity may differ from the team's (the query set marks each such digest).
"""

from collections.abc import Callable
from dataclasses import dataclass

import pymysql

from upgradelab.captures.digests import Digest, Workload, count_replayable
from upgradelab.captures.identifiers import bare
from upgradelab.captures.sql_text import Token, calls_joined, tokens
from upgradelab.captures.statement_parse import on_captured_server
from upgradelab.targets.provisioners.base import Endpoint
from upgradelab.targets.statement_timeout import StatementBound, StatementTimedOut

READ_TIMEOUT_S = 5.0  # one value read (the first non-NULL row of a column)
MAX_READS = 200  # columns read per capture; the digests past them stay unbound
LIMIT_ROWS = "10"  # a LIMIT's row count (the digest keeps none)
VALUE_READ = "SELECT {column} FROM {schema}.{table} WHERE {column} IS NOT NULL LIMIT 1"
_COMPARISONS = ("=", "<=>", "<>", "!=", "<", "<=", ">", ">=")
_SKIPPED = ("ws", "line", "block")


@dataclass(frozen=True)
class Slot:
    """One placeholder of a digest text: where it is (`start` in the text) and what it takes: a
    column (`qualifier`: the table or alias before it, if any; `column`; `listed`: inside `IN (...)`)
    or, with `column` None, a LIMIT/OFFSET count (`text`: what to put there)."""

    start: int
    end: int
    column: str | None
    qualifier: str | None = None
    listed: bool = False
    text: str = ""


@dataclass(frozen=True)
class TableRef:
    """A table the statement reads: `schema` (None: the digest's), `name`, `alias` (None: none)."""

    schema: str | None
    name: str
    alias: str | None


def _name(token: Token) -> str | None:
    """A name token's name (a backquoted one unquoted, a bare word as it is), else None."""
    if token.kind == "name":
        return token.text[1:-1].replace("``", "`")
    if token.kind == "word":
        return token.text
    return None


def _is(token: Token | None, *words: str) -> bool:
    return token is not None and token.kind in ("word", "other") and token.text.upper() in words


def _significant(text: str) -> list[Token]:
    return [token for token in tokens(text) if token.kind not in _SKIPPED]


def slots(text: str) -> list[Slot] | None:
    """The placeholders of digest text `text` in order (module docstring), `(...)` as one listed
    placeholder; None when one of them is none of the bound kinds (the digest stays unbound)."""
    found: list[Slot] = []
    marks = _significant(text)
    index = 0
    while index < len(marks):
        token = marks[index]
        listed = token.text == "(" and [m.text for m in marks[index + 1 : index + 5]] == [".", ".", ".", ")"]
        if not (token.kind == "other" and token.text == "?") and not listed:
            index += 1
            continue
        end = marks[index + 4].start + 1 if listed else token.start + 1
        slot = _slot(marks, index, token.start, end, listed)
        if slot is None:
            return None
        found.append(slot)
        index += 5 if listed else 1
    return found


def _slot(marks: list[Token], index: int, start: int, end: int, listed: bool) -> Slot | None:
    """The slot of the placeholder at marks[index] (its text from `start` to `end`), or None."""
    before = marks[:index]
    after = marks[index + 1] if index + 1 < len(marks) else None
    if not listed and before and _is(before[-1], "LIMIT"):  # LIMIT count, or LIMIT offset , count
        return Slot(start, end, None, text="0" if _is(after, ",") else LIMIT_ROWS)
    if not listed and before and _is(before[-1], "OFFSET"):
        return Slot(start, end, None, text="0")
    if (
        not listed
        and len(before) > 2
        and _is(before[-1], ",")
        and _is(before[-2], "?")
        and _is(before[-3], "LIMIT")
    ):
        return Slot(start, end, None, text=LIMIT_ROWS)
    # the operator before the placeholder, then the column before it
    at = len(before)
    if listed:
        at -= 1 if at and _is(before[at - 1], "IN") else at + 1
        at -= 1 if at and _is(before[at - 1], "NOT") else 0
    elif at and _is(before[at - 1], "LIKE", "BETWEEN"):
        at -= 2 if at > 1 and _is(before[at - 2], "NOT") else 1
    elif (
        at > 2 and _is(before[at - 1], "AND") and _is(before[at - 2], "?") and _is(before[at - 3], "BETWEEN")
    ):
        at -= 3
        at -= 1 if at and _is(before[at - 1], "NOT") else 0
    else:
        operator = ""
        while at and before[at - 1].kind == "other" and before[at - 1].text in "<=>!":
            operator = before[at - 1].text + operator
            at -= 1
        if operator not in _COMPARISONS:
            return None
    if at <= 0:
        return None
    parts = _qualified(before[:at])
    if parts is None:
        return None
    return Slot(start, end, parts[-1], parts[-2] if len(parts) > 1 else None, listed)


def _qualified(before: list[Token]) -> list[str] | None:
    """The dotted name ending `before` (`a`, `t . a`, `s . t . a`) as its parts, or None."""
    parts: list[str] = []
    at = len(before)
    while at:
        name = _name(before[at - 1])
        if name is None:
            return None
        parts.insert(0, name)
        at -= 1
        if len(parts) == 3 or not (at > 1 and _is(before[at - 1], ".")):
            break
        at -= 1
    return parts


def tables(text: str) -> list[TableRef]:
    """The tables digest text `text` names after FROM, JOIN, UPDATE and INTO (a comma list after
    FROM too), each with its alias: the places a placeholder's column is looked for."""
    marks = _significant(text)
    found: list[TableRef] = []
    index = 0
    while index < len(marks):
        if not _is(marks[index], "FROM", "JOIN", "UPDATE", "INTO"):
            index += 1
            continue
        index += 1
        while index < len(marks):
            ref, index = _table(marks, index)
            if ref is None:
                break
            found.append(ref)
            if not _is(marks[index] if index < len(marks) else None, ","):
                break
            index += 1
    return found


def _table(marks: list[Token], index: int) -> tuple[TableRef | None, int]:
    """The table reference at marks[index] and the index after it (None: none there)."""
    first = _name(marks[index]) if index < len(marks) else None
    if first is None or (marks[index].kind == "word" and _is(marks[index], "SELECT", "LATERAL")):
        return None, index
    index += 1
    schema, name = None, first
    if index + 1 < len(marks) and _is(marks[index], ".") and _name(marks[index + 1]) is not None:
        schema, name = first, _name(marks[index + 1]) or ""
        index += 2
    if index < len(marks) and _is(marks[index], "AS"):
        index += 1
    alias = None
    if index < len(marks) and marks[index].kind == "name":
        alias = _name(marks[index])
        index += 1
    return TableRef(schema, name, alias), index


class ValueReader:
    """Values of the captured server's columns, read once each (module docstring) through `bound`
    (the capture's account), at most MAX_READS; a column with no value, not readable or past the
    bound has none (None)."""

    def __init__(self, bound: StatementBound) -> None:
        self.bound = bound
        self.read: dict[tuple[str, str, str], str | None] = {}

    def value(self, schema: str, table: str, column: str) -> str | None:
        """The literal of one non-NULL value of `schema`.`table`.`column` (None: none)."""
        key = (schema, table, column)
        if key not in self.read:
            self.read[key] = self._read(*key) if len(self.read) < MAX_READS else None
        return self.read[key]

    def _read(self, schema: str, table: str, column: str) -> str | None:
        if not all(bare(name) for name in (schema, table, column)):
            return None
        sql = VALUE_READ.format(column=f"`{column}`", schema=f"`{schema}`", table=f"`{table}`")
        try:
            rows, _ = self.bound.run(sql)
        except (pymysql.MySQLError, StatementTimedOut):
            return None
        if not rows:
            return None
        return str(self.bound.connection.literal(rows[0][0]))


ValueOf = Callable[[str, str, str], str | None]  # (schema, table, column) -> a literal, or None


def bind(digest: Digest, value_of: ValueOf, default: str | None) -> str | None:
    """`digest`'s digest text with each placeholder bound (module docstring) to `value_of` its
    column (ValueReader.value), its tables in its schema or `default`; the text as it is when it
    has none; None when one cannot be bound, the text was cut, or the digest has a text of its own."""
    if digest.text_source != "digest_text" or digest.truncated or digest.text.rstrip().endswith("..."):
        return None
    text = calls_joined(digest.text)
    found = slots(text)
    if found is None:
        return None
    refs = tables(text)
    parts: list[str] = []
    cursor = 0
    for slot in found:
        value = (
            slot.text
            if slot.column is None
            else _column_value(slot, refs, value_of, digest.schema_name or default)
        )
        if value is None:
            return None
        parts += [text[cursor : slot.start], f"({value})" if slot.listed else value]
        cursor = slot.end
    return "".join(parts) + text[cursor:]


def _column_value(slot: Slot, refs: list[TableRef], value_of: ValueOf, schema: str | None) -> str | None:
    """A value of the slot's column in the first of its tables that has one (the qualifier's first)."""
    named = [ref for ref in refs if slot.qualifier in (ref.name, ref.alias)]
    for ref in named or refs:
        where = ref.schema or schema
        if where is None:
            continue
        value = value_of(where, ref.name, slot.column or "")
        if value is not None:
            return value
    return None


def bind_workload(bound: StatementBound, workload: Workload, default: str | None) -> int:
    """Every digest-text digest of `workload` bound on `bound`'s connection (Digest.bound_text set
    where each placeholder could be); how many were bound."""
    reader = ValueReader(bound)
    count = 0
    for digest in workload.digests:
        digest.bound_text = bind(digest, reader.value, default)
        count += digest.bound_text is not None
    return count


def bind_on_server(endpoint: Endpoint, workload: Workload, flavor: str) -> None:
    """bind_workload on a connection of its own to the captured server at `endpoint` (the capture's
    account; statement_parse.on_captured_server), then the workload's replayable counts again
    (captures/digests.py count_replayable); a server that cannot be reached leaves the digests
    unbound (logged)."""
    if any(digest.text_source == "digest_text" for digest in workload.digests):
        on_captured_server(
            endpoint,
            flavor,
            READ_TIMEOUT_S,
            lambda bound: bind_workload(bound, workload, endpoint.database),
            "the digest texts' values",
        )
    count_replayable(workload)
