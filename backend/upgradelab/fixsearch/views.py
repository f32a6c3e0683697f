"""Through views (issue 46, Deliver 5): a statement over a view (`SELECT * FROM customer_list WHERE
country = ?`) names no table of its plan, so the baseline's index and join order cannot be written into
it (rewrite.py refused: "table 'city' is referenced 0 times"). The view's own body can carry them.

The body is the server's own text, information_schema.VIEWS.VIEW_DEFINITION, which both servers print
normalised: `select <items> from (((`db`.`customer` `cu` join `db`.`address` `a` on(...)) join ...)
[where ...] [group by ...]`, every join parenthesised, every identifier quoted. `parse_body` reads that
shape: the select items, the join tree's table references and their ON conditions, the WHERE and the
rest. Only inner joins are taken (`join`, `inner join`, `cross join`, `straight_join`, a comma): with an
outer join, NATURAL or USING, moving a table can change the result (RewriteError, said in the trial).

`forced_body` writes the body with the baseline's order and indexes: the view's tables in the order
the baseline's plan joins them, each joined by STRAIGHT_JOIN (MySQL and MariaDB: the left table is
read first; MariaDB 11.8 has no JOIN_ORDER hint, and the operator stays in the join tree when the view
is merged into the statement), the baseline's index as FORCE INDEX after its table, the ON conditions
moved to the WHERE (the same for inner joins). Seen on MariaDB 11.8 (a Sakila-like customer_list):
the rewritten view and the statement with it inlined both take 10.11's plan back (country, city by
idx_fk_country_id, address, customer).

Two candidates come of it (candidates.py, evidence.py):
- `view_candidate`: the view rewritten, `CREATE OR REPLACE ... VIEW` with the forced body (its
  ALGORITHM, DEFINER and SQL SECURITY kept from SHOW CREATE VIEW), scope "global" (every statement
  over the view changes), measured on the variant's second instance like the statistics candidate
  (second.py), with what to apply and the original definition to undo it;
- `inlined_candidate`: where the view is mergeable (the variant's plan names the view's own tables,
  not a `<derivedN>`), the statement with the view's reference replaced by the forced body as a
  derived table, statement-level, measured like any hint.
The select items keep the view's column names (information_schema.COLUMNS, in order), so a view made
with a column list reads the same.

One concept: a view's body read and written back in the baseline's plan; the reader (a small
tokenizer and join-tree walk over the servers' normalised text) exists only for the two candidates.
"""

import re
from dataclasses import dataclass, field

from upgradelab.fixsearch.candidates import Candidate
from upgradelab.fixsearch.rewrite import RewriteError
from upgradelab.measurement import PlanStep

_TOKEN = re.compile(
    r"\s+|`(?:[^`]|``)*`|'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\"|[(),.;]|[A-Za-z_0-9$@#]+|[^\s\w`'\"(),.;]+"
)
_INNER = ("join", "inner join", "cross join", "straight_join")
_OUTER = ("left", "right", "natural", "full", "using", "outer")
_ENDS = ("where", "group", "having", "order", "limit", "window", "union", "for", "lock", "into")


def tokens(text: str) -> list[str]:
    """The text's tokens, whitespace dropped: quoted identifiers and strings whole."""
    return [t for t in _TOKEN.findall(text) if not t.isspace()]


class _Source:
    """A text's tokens and where each lies in it: a run of tokens is given back as it was written."""

    def __init__(self, text: str) -> None:
        spans = [m.span() for m in _TOKEN.finditer(text) if not m.group().isspace()]
        self.text, self.spans = text, spans
        self.parts = [text[a:b] for a, b in spans]

    def between(self, start: int, end: int) -> str:
        """Tokens start..end-1 as written ('' for none)."""
        if end <= start:
            return ""
        return self.text[self.spans[start][0] : self.spans[end - 1][1]]


def _unquote(identifier: str) -> str:
    return identifier[1:-1].replace("``", "`") if identifier.startswith("`") else identifier


def quoted(name: str) -> str:
    """An identifier quoted with backticks."""
    return "`" + name.replace("`", "``") + "`"


@dataclass(frozen=True)
class TableRef:
    """A table of the view's body: its text as written (`db`.`t` `a`), its name and alias (None)."""

    text: str
    name: str
    alias: str | None

    @property
    def named(self) -> str:
        """As a plan names it: the alias, else the table's name."""
        return self.alias or self.name


@dataclass
class ViewBody:
    """A view's body read by `parse_body`: its select items (texts), its tables in written order, the
    ON conditions, the WHERE (None) and what follows it (GROUP BY ..., ''), and its select options."""

    items: list[str]
    tables: list[TableRef]
    conditions: list[str] = field(default_factory=list)
    where: str | None = None
    tail: str = ""
    options: str = ""


def _split_top(source: _Source, start: int, end: int) -> list[str]:
    """The texts between top-level commas of tokens start..end-1."""
    out, depth, first = [], 0, start
    for index in range(start, end):
        part = source.parts[index]
        depth += part == "("
        depth -= part == ")"
        if part == "," and depth == 0:
            out.append(source.between(first, index))
            first = index + 1
    out.append(source.between(first, end))
    return out


class _JoinReader:
    """The FROM clause's tokens read as a tree of inner joins (module docstring)."""

    def __init__(self, source: _Source, start: int, end: int) -> None:
        self.source, self.parts, self.at, self.end = source, source.parts[:end], start, end
        self.tables: list[TableRef] = []
        self.conditions: list[str] = []

    def peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.parts[index].lower() if index < self.end else ""

    def read(self) -> None:
        self.expression()
        if self.at != self.end:
            raise RewriteError(f"the view's FROM clause is not plain joins at {self.parts[self.at]!r}")

    def expression(self) -> None:
        self.factor()
        while self.at < self.end and self.peek() != ")":
            word = self.peek()
            if word in _OUTER:
                raise RewriteError(f"the view joins with {word.upper()}: only inner joins are reordered")
            if word == ",":
                self.at += 1
            elif word in ("inner", "cross") and self.peek(1) == "join":
                self.at += 2
            elif word in ("join", "straight_join"):
                self.at += 1
            else:
                raise RewriteError(f"the view's FROM clause has {word!r} where a join was expected")
            self.factor()
            if self.peek() == "on":
                self.at += 1
                self.conditions.append(self.condition())
            elif self.peek() == "using":
                raise RewriteError("the view joins with USING: only ON conditions are moved")

    def condition(self) -> str:
        start, depth = self.at, 0
        while self.at < self.end:
            part = self.peek()
            if depth == 0 and (
                part in (")", ",", "join", "straight_join", *_OUTER) or part in ("inner", "cross")
            ):
                break
            depth += part == "("
            depth -= part == ")"
            self.at += 1
        return self.source.between(start, self.at)

    def factor(self) -> None:
        if self.peek() == "(":
            if self.peek(1) == "select":
                raise RewriteError("the view reads a derived table: its FROM list is not reordered")
            self.at += 1
            self.expression()
            if self.peek() != ")":
                raise RewriteError("the view's FROM clause has an unbalanced parenthesis")
            self.at += 1
            return
        start = self.at
        name = self.parts[self.at]
        self.at += 1
        while self.peek() == "." and self.at + 1 < self.end:
            name = self.parts[self.at + 1]
            self.at += 2
        alias = None
        if self.peek() == "as":
            self.at += 1
        if self.at < self.end and self.peek() not in (
            *_INNER,
            *_OUTER,
            "on",
            ",",
            ")",
            "inner",
            "cross",
        ):
            if self.peek() in ("use", "force", "ignore"):
                raise RewriteError("the view has an index hint already: it is not rewritten")
            alias = _unquote(self.parts[self.at])
            self.at += 1
        self.tables.append(TableRef(self.source.between(start, self.at), _unquote(name), alias))


def parse_body(definition: str) -> ViewBody:
    """The view's body (information_schema.VIEWS.VIEW_DEFINITION) read (module docstring);
    RewriteError naming what it cannot take."""
    source = _Source(definition)
    parts = source.parts
    if not parts or parts[0].lower() != "select":
        raise RewriteError("the view's body is not a SELECT")
    depth, found = 0, {}
    for index, part in enumerate(parts):
        depth += part == "("
        depth -= part == ")"
        word = part.lower()
        if depth == 0 and word in ("from", *_ENDS) and word not in found:
            found[word] = index
    if "union" in found:
        raise RewriteError("the view's body is a UNION")
    if "from" not in found:
        raise RewriteError("the view reads no table")
    options = []
    at = 1
    while at < found["from"] and parts[at].lower() in ("distinct", "straight_join", "sql_no_cache", "all"):
        options.append(parts[at])
        at += 1
    items = _split_top(source, at, found["from"])
    ends = sorted(index for word, index in found.items() if word != "from")
    from_end = ends[0] if ends else len(parts)
    reader = _JoinReader(source, found["from"] + 1, from_end)
    reader.read()
    where, tail = None, ""
    if "where" in found:
        rest = [i for i in ends if i > found["where"]]
        where = source.between(found["where"] + 1, rest[0] if rest else len(parts))
        tail = source.between(rest[0], len(parts)) if rest else ""
    elif ends:
        tail = source.between(ends[0], len(parts))
    return ViewBody(items, reader.tables, reader.conditions, where, tail, " ".join(options))


_ALIAS = re.compile(r"\s+AS\s+(`(?:[^`]|``)*`|\w+)\s*$", re.IGNORECASE)


def named_items(items: list[str], columns: list[str]) -> list[str]:
    """The select items, each aliased to the view's column of its place (`columns`, in order);
    RewriteError when their counts differ."""
    if len(items) != len(columns):
        raise RewriteError(f"the view has {len(columns)} columns and its body {len(items)} select items")
    return [
        f"{_ALIAS.sub('', item)} AS {quoted(column)}" for item, column in zip(items, columns, strict=True)
    ]


def forced_body(body: ViewBody, columns: list[str], order: list[str], indexes: dict[str, str]) -> str:
    """The body with its tables joined in `order` (as plans name them: aliases or names) by
    STRAIGHT_JOIN, FORCE INDEX (`indexes[table]`) after those tables, the ON conditions in the WHERE
    (module docstring). RewriteError when `order` does not name exactly the body's tables."""
    by_name = {t.named: t for t in body.tables}
    if sorted(by_name) != sorted(order) or len(by_name) != len(body.tables):
        raise RewriteError(f"the view joins {sorted(by_name)}, the baseline's plan orders {sorted(order)}")
    refs = []
    for name in order:
        ref = by_name[name].text
        if name in indexes:
            ref += f" FORCE INDEX ({quoted(indexes[name])})"
        refs.append(ref)
    conditions = [*body.conditions, *([body.where] if body.where else [])]
    where = f" where {' and '.join(f'({c})' for c in conditions)}" if conditions else ""
    options = f"{body.options} " if body.options else ""
    tail = f" {body.tail}" if body.tail else ""
    items = ", ".join(named_items(body.items, columns))
    return f"select {options}{items} from {' straight_join '.join(refs)}{where}{tail}"


def view_order(body: ViewBody, plan: list[PlanStep]) -> list[str]:
    """The view's tables in the order `plan` joins them (its steps' table names are aliases)."""
    mine = {t.named for t in body.tables}
    return [s.table for s in plan if s.table in mine]


def merged(body: ViewBody, plan: list[PlanStep]) -> bool:
    """Whether the plan reads the view's own tables (the view merged into the statement), not a
    materialized `<derivedN>`."""
    named = {s.table for s in plan}
    return bool(body.tables) and all(t.named in named for t in body.tables)


@dataclass(frozen=True)
class View:
    """A view a statement reads: its database, name, body, columns in order, and SHOW CREATE VIEW's
    text (what undoes a rewrite)."""

    database: str
    name: str
    definition: str
    columns: list[str]
    create: str


def _create_prefix(create: str, name: str) -> str:
    """SHOW CREATE VIEW's `CREATE ALGORITHM=... DEFINER=... SQL SECURITY ... VIEW `v`` as `CREATE OR
    REPLACE ...`: what precedes the body."""
    found = re.match(
        r"^\s*CREATE\s+(.*?\bVIEW\s+(?:`(?:[^`]|``)*`\.)?`(?:[^`]|``)*`)\s+AS\s", create, re.I | re.S
    )
    if found is None:
        return f"CREATE OR REPLACE VIEW {quoted(name)}"
    return f"CREATE OR REPLACE {found[1]}"


def _plan_keys(plan: list[PlanStep]) -> dict[str, str | None]:
    return {s.table: s.key for s in plan}


def view_changes(
    view: View, baseline: list[PlanStep], variant: list[PlanStep]
) -> tuple[ViewBody, list[str], dict[str, str]] | None:
    """(the body, the baseline's order of its tables, the baseline's indexes where the variant's plan
    uses another) when the two plans differ on the view's tables; None when they do not.
    RewriteError when the body cannot be read."""
    body = parse_body(view.definition)
    before, after = view_order(body, baseline), view_order(body, variant)
    base_keys, var_keys = _plan_keys(baseline), _plan_keys(variant)
    indexes = {t: k for t in before if (k := base_keys.get(t)) is not None and var_keys.get(t) != k}
    if before == after and not indexes:
        return None
    return body, before, indexes


def view_candidate(view: View, baseline: list[PlanStep], variant: list[PlanStep]) -> Candidate | None:
    """The view rewritten with the baseline's order and indexes (module docstring), or None when the
    plans agree on its tables; a candidate refused with the reason when its body cannot carry it."""
    name = f"view {view.name} rewritten in the baseline's join order"
    try:
        found = view_changes(view, baseline, variant)
        if found is None:
            return None
        body, order, indexes = found
        text = forced_body(body, view.columns, order, indexes)
    except RewriteError as error:
        return Candidate(name, "view", f"the view cannot carry it: {error}", {}, "", scope="global",
                         extra={"refused": str(error), "view": view.name})  # fmt: skip
    apply = f"{_create_prefix(view.create, view.name)} AS {text}"
    undo = re.sub(r"^\s*CREATE\s", "CREATE OR REPLACE ", view.create, count=1, flags=re.I)
    shown = ", ".join(order) + (
        f"; indexes {', '.join(f'{t}.{k}' for t, k in indexes.items())}" if indexes else ""
    )
    note = (
        f"the statement reads view {view.name}: its body rewritten with the baseline's join order "
        f"({shown}) by STRAIGHT_JOIN and FORCE INDEX, measured on a second instance of the variant"
    )
    extra = {"statements": [apply], "undo": [undo], "view": view.name, "body": text}
    return Candidate(name, "view", note, {}, apply + ";", scope="global", extra=extra)


# FROM / JOIN, the view's name (a database before it, quoted or not), its alias (a keyword is none)
_NOT_AN_ALIAS = (
    "WHERE|JOIN|ON|GROUP|ORDER|LIMIT|LEFT|RIGHT|INNER|CROSS|STRAIGHT_JOIN|UNION|HAVING|USING|NATURAL"
)
_REFERENCE = (
    r"\b(?P<lead>FROM|JOIN)\s+(?P<name>(?:`[^`]+`|\w+)\.)?(?:`{name}`|{name}\b)"
    rf"(?P<alias>\s+(?:AS\s+)?(?!(?:{_NOT_AN_ALIAS})\b)(?:`[^`]+`|\w+))?"
)


def inline(sql: str, view: str, body: str) -> str:
    """`sql` with its one reference to `view` replaced by `(body) AS <its alias or the view's name>`;
    RewriteError when it references the view other than once."""
    pattern = re.compile(_REFERENCE.format(name=re.escape(view)), re.IGNORECASE)
    found = list(pattern.finditer(sql))
    if len(found) != 1:
        raise RewriteError(
            f"view {view!r} is referenced {len(found)} times after FROM or JOIN; one is needed"
        )
    match = found[0]
    alias = re.sub(r"^\s+(?:AS\s+)?", "", match["alias"], flags=re.I) if match["alias"] else quoted(view)
    return f"{sql[: match.start()]}{match['lead']} ({body}) AS {alias}{sql[match.end() :]}"


def inlined_candidate(
    view: View, sql: str, baseline: list[PlanStep], variant: list[PlanStep]
) -> Candidate | None:
    """The statement with the view's forced body inlined, where the view is mergeable (the variant's
    plan reads its tables); None when it is not or the plans agree on them."""
    try:
        found = view_changes(view, baseline, variant)
        if found is None or not merged(found[0], variant):
            return None
        body, order, indexes = found
        text = forced_body(body, view.columns, order, indexes)
        inline(sql, view.name, text)  # refused here when the statement cannot carry it
    except RewriteError:
        return None
    note = (
        f"the statement reads view {view.name}, which the variant merges: the view's body inlined "
        f"with the baseline's join order ({', '.join(order)}), for this statement only"
    )
    apply = f"FROM ({text}) AS {quoted(view.name)}"
    extra = {"inline": {"view": view.name, "body": text}}
    return Candidate(
        f"view {view.name} inlined in the baseline's join order", "plan", note, {}, apply, extra=extra
    )
