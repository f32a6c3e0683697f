"""A statement-level remedy written into the statement itself, so it holds for that statement only and
nothing else on the server changes (issue 34: never a global setting without its side effects checked):

- MySQL: an optimizer hint comment after the statement's first keyword,
  `SELECT /*+ SET_VAR(optimizer_switch='semijoin=on') SET_VAR(eq_range_index_dive_limit=0) */ ...`
  (MySQL 8.0.3+); a statement that already has a hint comment there gets the hints inside it (MySQL
  reads one hint comment per query block, the first). Only SELECT, INSERT, REPLACE, UPDATE and DELETE
  take a hint after their keyword; another statement (WITH ..., a parenthesised SELECT) is not
  rewritten (RewriteError).
- MariaDB: `SET STATEMENT optimizer_switch='semijoin=on', eq_range_index_dive_limit=0 FOR <statement>`
  (MariaDB 10.1.2+), any statement.

The baseline's index as a plan hint (`index_hint`): MySQL `/*+ INDEX(t k) */` (8.0.20+, `t` the table
or its alias as the plan names it); MariaDB `FORCE INDEX (k)` after the table's one reference in a
FROM or JOIN clause (a statement that names it in none, or more than once, cannot carry it).

The baseline's join order as a plan hint (`join_order_hint`): MySQL `/*+ JOIN_ORDER(a, b) */` (8.0+,
the tables as the plan names them); MariaDB has no join-order hint: `SELECT STRAIGHT_JOIN` joins the
FROM list in its written order, so the FROM list is rewritten in the baseline's order. That is safe
only for one SELECT (no subquery, no UNION) whose FROM list is comma-separated plain references
(`t`, `db.t`, `t [AS] a`: no JOIN ... ON, no index hint, no derived table) naming exactly the plan's
tables: with an explicit JOIN, an outer join or a subquery, moving a reference can change the result
or leave the order unforced; such a statement cannot carry it (RewriteError). The test is on the
text, literals included: a literal holding a keyword is refused too (the safe side).

The baseline's subquery strategy as a plan hint (`subquery_hint`, MySQL only: strategies.py): the
hint written after the SELECT of every IN / EXISTS subquery, in that query block's own hint comment.

Values: numbers (digits, a sign, a decimal point: MariaDB 11's cost variables are doubles, and refuse
a quoted '10.000000' with "Incorrect argument type") are written bare, anything else quoted with ''
and \\ escaped; a variable name is letters, digits and `_` only (RewriteError otherwise): the names
come from the servers' own variable lists, and the values from them or the lever list, never from a user.
"""

import re

HINTED = ("select", "insert", "replace", "update", "delete")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NUMBER = re.compile(r"^-?[0-9]+(?:\.[0-9]+)?$")
_FIRST_WORD = re.compile(r"^\s*([A-Za-z]+)")
_HINT_OPEN = re.compile(r"\s*/\*\+")


class RewriteError(ValueError):
    """The statement cannot carry the remedy (its words say why)."""


def literal(value: str) -> str:
    """A setting's value as SQL: a bare number, else a quoted string."""
    if _NUMBER.match(value):
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def _assignments(settings: dict[str, str]) -> list[tuple[str, str]]:
    if not settings:
        raise RewriteError("no setting to apply")
    for name in settings:
        if not _NAME.match(name):
            raise RewriteError(f"{name!r} is not a variable name")
    return [(name, literal(value)) for name, value in settings.items()]


def set_statement(sql: str, settings: dict[str, str]) -> str:
    """MariaDB: `SET STATEMENT a=1, b='x' FOR <sql>`."""
    pairs = ", ".join(f"{name}={value}" for name, value in _assignments(settings))
    return f"SET STATEMENT {pairs} FOR {sql}"


def set_var_hint(sql: str, settings: dict[str, str]) -> str:
    """MySQL: SET_VAR hints after the first keyword (module docstring)."""
    hints = " ".join(f"SET_VAR({name}={value})" for name, value in _assignments(settings))
    return with_hint(sql, hints)


def with_hint(sql: str, hints: str) -> str:
    """MySQL: `hints` (the text inside a /*+ */ comment) after the statement's first keyword, inside
    its hint comment when it has one. RewriteError for a statement that takes none there."""
    first = _FIRST_WORD.match(sql)
    if first is None or first[1].lower() not in HINTED:
        word = first[1] if first else sql.strip()[:20]
        raise RewriteError(
            f"a hint goes after {', '.join(w.upper() for w in HINTED)}; this statement starts {word!r}"
        )
    end = first.end()
    existing = _HINT_OPEN.match(sql, end)
    if existing:
        return f"{sql[: existing.end()]} {hints}{sql[existing.end() :]}"
    return f"{sql[:end]} /*+ {hints} */{sql[end:]}"


def rewrite(sql: str, flavor: str, settings: dict[str, str]) -> str:
    """`sql` with `settings` in force for it alone, in `flavor`'s syntax; RewriteError when it cannot."""
    if flavor == "mariadb":
        return set_statement(sql, settings)
    if flavor == "mysql":
        return set_var_hint(sql, settings)
    raise RewriteError(f"no statement-level setting for flavor {flavor!r}")


def remedy_text(flavor: str, settings: dict[str, str]) -> str:
    """What to apply, as the report shows it: the hint or the SET STATEMENT prefix."""
    pairs = _assignments(settings)
    if flavor == "mariadb":
        return "SET STATEMENT " + ", ".join(f"{n}={v}" for n, v in pairs) + " FOR <statement>"
    return "/*+ " + " ".join(f"SET_VAR({n}={v})" for n, v in pairs) + " */"


_REFERENCE = re.compile(
    r"\b(?:FROM|JOIN)\s+(?P<name>(?:`[^`]+`|\w+)(?:\.(?:`[^`]+`|\w+))?)"
    r"(?:\s+(?:AS\s+)?(?P<alias>`[^`]+`|\w+))?",
    re.IGNORECASE,
)
# words that may follow a table reference and are no alias
_NOT_ALIAS = frozenset(
    {
        "where", "join", "on", "using", "group", "order", "limit", "left", "right", "inner", "outer",
        "cross", "natural", "straight_join", "union", "having", "force", "use", "ignore", "window",
        "for", "lock", "into", "partition", "procedure",
    }
)  # fmt: skip


def _bare(identifier: str) -> str:
    return identifier.split(".")[-1].strip("`")


def force_index(sql: str, table: str, key: str) -> str:
    """MariaDB: `FORCE INDEX (key)` after the one FROM/JOIN reference to `table` (its name or alias)."""
    for name in (table, key):
        if not _NAME.match(name):
            raise RewriteError(f"{name!r} is not a table or index name the lab writes into a statement")
    found = []
    for match in _REFERENCE.finditer(sql):
        alias = match["alias"]
        if alias is not None and alias.strip("`").lower() in _NOT_ALIAS:
            alias, end = None, match.end("name")
        else:
            end = match.end()
        if (alias is not None and alias.strip("`") == table) or (
            alias is None and _bare(match["name"]) == table
        ):
            found.append(end)
    if len(found) != 1:
        raise RewriteError(
            f"table {table!r} is referenced {len(found)} times after FROM or JOIN; one is needed"
        )
    return f"{sql[: found[0]]} FORCE INDEX (`{key}`){sql[found[0] :]}"


def index_hint(sql: str, flavor: str, indexes: dict[str, str]) -> str:
    """`sql` made to use index `indexes[table]` on each table (module docstring)."""
    if not indexes:
        raise RewriteError("no index to use")
    if flavor == "mysql":
        for name in (*indexes, *indexes.values()):
            if not _NAME.match(name):
                raise RewriteError(f"{name!r} is not a table or index name the lab writes into a statement")
        return with_hint(sql, " ".join(f"INDEX({table} {key})" for table, key in indexes.items()))
    if flavor == "mariadb":
        for table, key in indexes.items():
            sql = force_index(sql, table, key)
        return sql
    raise RewriteError(f"no index hint for flavor {flavor!r}")


def index_text(flavor: str, indexes: dict[str, str]) -> str:
    """What to apply for an index candidate, as the report shows it."""
    if flavor == "mysql":
        return "/*+ " + " ".join(f"INDEX({t} {k})" for t, k in indexes.items()) + " */"
    return "; ".join(f"FORCE INDEX (`{k}`) after {t}" for t, k in indexes.items())


_CLAUSE_END = re.compile(
    r"\b(?:WHERE|GROUP|HAVING|ORDER|LIMIT|WINDOW|FOR|LOCK|INTO|PROCEDURE|UNION)\b|;", re.IGNORECASE
)
_FROM_ITEM = re.compile(
    r"^\s*(?P<name>(?:`[^`]+`|\w+)(?:\.(?:`[^`]+`|\w+))?)(?:\s+(?:AS\s+)?(?P<alias>`[^`]+`|\w+))?\s*$",
    re.IGNORECASE,
)


def _count(word: str, sql: str) -> int:
    return len(re.findall(rf"\b{word}\b", sql, re.IGNORECASE))


def straight_join(sql: str, order: list[str]) -> str:
    """MariaDB: `SELECT STRAIGHT_JOIN ... FROM <the references in `order`> ...` (module docstring:
    where it is safe; RewriteError otherwise, naming why)."""
    select = _FIRST_WORD.match(sql)
    if select is None or select[1].lower() != "select":
        raise RewriteError("STRAIGHT_JOIN is written into a SELECT; this statement is not one")
    if _count("SELECT", sql) != 1 or _count("FROM", sql) != 1:
        raise RewriteError(
            "the statement has a subquery or a UNION: its FROM list cannot be reordered safely"
        )
    for word in ("JOIN", "STRAIGHT_JOIN", "ON", "USING"):
        if _count(word, sql):
            raise RewriteError(
                f"the statement joins with {word}: only a comma-separated FROM list is reordered"
            )
    start = re.search(r"\bFROM\b", sql, re.IGNORECASE)
    assert start is not None  # counted above
    end_match = _CLAUSE_END.search(sql, start.end())
    end = end_match.start() if end_match else len(sql)
    references: dict[str, str] = {}
    for item in sql[start.end() : end].split(","):
        found = _FROM_ITEM.match(item)
        if found is None:
            raise RewriteError(f"{item.strip()!r} in the FROM list is not a plain table reference")
        named = (found["alias"] or _bare(found["name"])).strip("`")
        references[named] = item.strip()
    if sorted(references) != sorted(order):
        raise RewriteError(f"the FROM list names {sorted(references)}, the plan joins {sorted(order)}")
    tail = sql[end:]
    return (
        f"{sql[: select.end()]} STRAIGHT_JOIN{sql[select.end() : start.end()]} "
        f"{', '.join(references[t] for t in order)}{' ' if tail and not tail.startswith(';') else ''}{tail}"
    )


def join_order_hint(sql: str, flavor: str, order: list[str]) -> str:
    """`sql` made to join its tables in `order` (module docstring)."""
    if len(order) < 2:
        raise RewriteError("a join order needs two tables")
    for name in order:
        if not _NAME.match(name):
            raise RewriteError(f"{name!r} is not a table name the lab writes into a statement")
    if flavor == "mysql":
        return with_hint(sql, f"JOIN_ORDER({', '.join(order)})")
    if flavor == "mariadb":
        return straight_join(sql, order)
    raise RewriteError(f"no join order hint for flavor {flavor!r}")


def join_order_text(flavor: str, order: list[str]) -> str:
    """What to apply for a join order candidate, as the report shows it."""
    if flavor == "mysql":
        return f"/*+ JOIN_ORDER({', '.join(order)}) */"
    return f"SELECT STRAIGHT_JOIN ... FROM {', '.join(order)} (the FROM list in this order)"


_SUBQUERY = re.compile(r"\b(?:IN|EXISTS)\s*\(\s*SELECT\b", re.IGNORECASE)


def subquery_hint(sql: str, hint: str) -> str:
    """MySQL: `hint` in the query block of every IN / EXISTS subquery, after its SELECT (inside the
    hint comment it has there, if any): `... IN (SELECT /*+ SEMIJOIN(MATERIALIZATION) */ c FROM i)`.
    The test is on the text: a literal holding `IN (SELECT` would get one too, and is refused by the
    server's hint parser as a warning at worst. RewriteError when the statement has no such subquery."""
    found = list(_SUBQUERY.finditer(sql))
    if not found:
        raise RewriteError("the statement has no IN or EXISTS subquery to carry a strategy hint")
    out, last = [], 0
    for match in found:
        out.append(sql[last : match.end()])
        existing = _HINT_OPEN.match(sql, match.end())
        if existing:
            out.append(sql[match.end() : existing.end()] + f" {hint}")
            last = existing.end()
        else:
            out.append(f" /*+ {hint} */")
            last = match.end()
    out.append(sql[last:])
    return "".join(out)


def apply_remedy(
    sql: str,
    flavor: str,
    settings: dict[str, str],
    indexes: dict[str, str],
    join_order: list[str] | None = None,
    subquery: str = "",
) -> str:
    """`sql` with a candidate's remedy: its index hint, its join order, its subquery hint (MySQL), then
    its settings (any may be empty)."""
    if indexes:
        sql = index_hint(sql, flavor, indexes)
    if join_order:
        sql = join_order_hint(sql, flavor, join_order)
    if subquery:
        if flavor != "mysql":
            raise RewriteError(f"no subquery strategy hint for flavor {flavor!r}")
        sql = subquery_hint(sql, subquery)
    return rewrite(sql, flavor, settings) if settings else sql
