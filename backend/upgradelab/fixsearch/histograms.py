"""Statistics as a candidate (issue 34, Deliver 2): histograms on the columns the statement filters on.

Which columns: those named in the statement's WHERE clauses and JOIN ... ON conditions (sqlparse's
grouping, as the replay splits statements with it; a subquery's own WHERE included, its select list
not), each resolved to a table of the dataset: `alias.c` through the statement's FROM / JOIN
references (rewrite.py's reading), a bare `c` to the one referenced table that has it; a name that
is no column of a referenced table (read from the variant's information_schema.COLUMNS of the
statement's database) is left out, as is one two referenced tables share.

What to apply, per table: MySQL `ANALYZE TABLE t UPDATE HISTOGRAM ON c1, c2` (8.0+; undone by `...
DROP HISTOGRAM ON c1, c2`); MariaDB `ANALYZE TABLE t PERSISTENT FOR COLUMNS (c1, c2) INDEXES ()`
(engine-independent statistics with histograms; used while use_stat_tables is PREFERABLY or
COMPLEMENTARY (11.x's default preferably_for_queries) and optimizer_use_condition_selectivity is at
least 3; undone by deleting the rows from mysql.column_stats).

Scope "global": it changes the variant's data dictionary for every statement on those tables, not one
statement, so once it restores it goes through the global remedies' whole-replay side-effect check
(effects.py, whole.py). Statistics live in the server's tables: applied on the search's one variant
instance they would change the "variant as it is" arm too (and every later candidate); applying and
removing them around each turn would be an ANALYZE per table per turn on a read-only replay
connection, and a search ending between the two would leave them in a kept datadir. So the
candidate's arm is a SECOND INSTANCE of the variant (second.py: same target, options and settings,
the dataset's kept datadir; the ANALYZE applied there as the lab's admin), timed against the baseline
and the variant as it is (measure.py); an instance difference is part of its ratios (its reason says
so, with the replay's A/A control's interval when the replay had one). Where no second instance can
be opened (an existing server, no memory for a third), it is listed "not measured" with the reason
(NOT_MEASURED and why).
"""

import re
from dataclasses import dataclass

import sqlparse
from sqlparse.sql import Function, Identifier, Parenthesis, TokenList, Where
from sqlparse.tokens import DML, Keyword

from upgradelab.fixsearch.candidates import Candidate
from upgradelab.fixsearch.rewrite import _NOT_ALIAS, _bare

NOT_MEASURED = (
    "not measured: needs a second instance of the variant (statistics are per table on the server: "
    "applied on the search's variant instance they would change the variant-as-is arm too)"
)


class Unavailable(Exception):
    """The statistics candidate cannot be measured: no second instance of the variant (the message
    says why; fixsearch/second.py)."""


class Refused(Exception):
    """The server refused the statistics candidate's ANALYZE (the message is the server's)."""


# a FROM / JOIN reference and its alias; a keyword after the name is no alias (and stays for the next match)
_REFERENCE = re.compile(
    r"\b(?:FROM|JOIN)\s+(?P<name>(?:`[^`]+`|\w+)(?:\.(?:`[^`]+`|\w+))?)"
    rf"(?:\s+(?:AS\s+)?(?!(?:{'|'.join(sorted(_NOT_ALIAS))})\b)(?P<alias>`[^`]+`|\w+))?",
    re.IGNORECASE,
)
# keywords that end a JOIN ... ON condition
_ON_ENDS = ("JOIN", "WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "WINDOW")


@dataclass(frozen=True)
class Column:
    """A column as the statement names it: its qualifier (table or alias; None: bare) and name."""

    qualifier: str | None
    name: str


def _is_subquery(token: Parenthesis) -> bool:
    return any(t.ttype is DML and t.normalized == "SELECT" for t in token.tokens)


def _collect(group: TokenList, filtering: bool, out: list[Column]) -> None:
    on = False
    for token in group.tokens:
        if token.is_whitespace or token.ttype in sqlparse.tokens.Comment:
            continue
        if token.ttype in Keyword:
            word = token.normalized
            if word == "ON":
                on = True
            elif any(word.endswith(end) or word.startswith(end) for end in _ON_ENDS):
                on = False
            continue
        inside = filtering or on
        if isinstance(token, Function):  # its name is no column; its arguments may be
            for part in token.tokens:
                if isinstance(part, Parenthesis):
                    _collect(part, inside, out)
        elif isinstance(token, Where):
            _collect(token, True, out)
        elif isinstance(token, Parenthesis) and _is_subquery(token):
            _collect(token, False, out)  # its own WHERE filters; its select list does not
        elif isinstance(token, Identifier) and inside and not any(t.is_group for t in token.tokens):
            parent, real = token.get_parent_name(), token.get_real_name()  # type: ignore[no-untyped-call]
            out.append(Column(parent, real or token.value))
        elif token.is_group:  # an aliased expression, a comparison, a function's arguments
            _collect(token, inside, out)


def filtered_columns(sql: str) -> list[Column]:
    """The columns in the statement's WHERE and ON conditions, in order, once each (module docstring)."""
    out: list[Column] = []
    for statement in sqlparse.parse(sql):
        _collect(statement, False, out)
    return list(dict.fromkeys(Column(c.qualifier and c.qualifier.strip("`"), c.name.strip("`")) for c in out))


def references(sql: str) -> dict[str, str]:
    """{name or alias as written: table} of the statement's FROM / JOIN references (rewrite.py's
    pattern, a keyword never taken for an alias: the first of a comma-separated list only)."""
    found: dict[str, str] = {}
    for match in _REFERENCE.finditer(sql):
        table = _bare(match["name"])
        found[table] = table
        if match["alias"] is not None:
            found[match["alias"].strip("`")] = table
    return found


def resolved(sql: str, columns_of: dict[str, set[str]]) -> dict[str, list[str]]:
    """{table: [columns]} the statement filters on, resolved to the dataset's tables (`columns_of`:
    {table: its columns}, as information_schema.COLUMNS gives them; module docstring)."""
    named = references(sql)
    tables = sorted(set(named.values()) & set(columns_of))
    out: dict[str, list[str]] = {}
    for column in filtered_columns(sql):
        if column.qualifier is not None:
            table = named.get(column.qualifier)
            owners = [table] if table in columns_of and column.name in columns_of[table] else []
        else:
            owners = [t for t in tables if column.name in columns_of[t]]
        if len(owners) == 1 and column.name not in out.setdefault(owners[0], []):
            out[owners[0]].append(column.name)
    return {table: names for table, names in out.items() if names}


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def analyze_statements(flavor: str, columns: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """(what to apply, how to undo it) per table, in `flavor`'s words (module docstring)."""
    apply, undo = [], []
    for table, names in columns.items():
        listed = ", ".join(_quoted(c) for c in names)
        if flavor == "mysql":
            apply.append(f"ANALYZE TABLE {_quoted(table)} UPDATE HISTOGRAM ON {listed}")
            undo.append(f"ANALYZE TABLE {_quoted(table)} DROP HISTOGRAM ON {listed}")
        else:
            apply.append(f"ANALYZE TABLE {_quoted(table)} PERSISTENT FOR COLUMNS ({listed}) INDEXES ()")
            quoted = ", ".join("'" + c.replace("'", "''") + "'" for c in names)
            undo.append(f"DELETE FROM mysql.column_stats WHERE db_name = DATABASE() AND table_name = "
                        f"'{table.replace(chr(39), chr(39) * 2)}' AND column_name IN ({quoted})")  # fmt: skip
    return apply, undo


def statistics_candidate(
    flavor: str, sql: str, columns_of: dict[str, set[str]], filtered: dict[str, list[str]] | None = None
) -> Candidate | None:
    """Histograms on the columns the statement filters on (module docstring; `filtered`: those
    columns already resolved, through the statement's views, fixsearch/indexes.py); None when it
    filters on no column of the dataset."""
    columns = resolved(sql, columns_of) if filtered is None else filtered
    if not columns:
        return None
    apply, undo = analyze_statements(flavor, columns)
    shown = ", ".join(f"{t}.{c}" for t, names in columns.items() for c in names)
    note = f"histograms on the columns the statement filters on ({shown})"
    if flavor == "mariadb":
        note += (
            "; read while use_stat_tables is PREFERABLY or COMPLEMENTARY and "
            "optimizer_use_condition_selectivity >= 3"
        )
    return Candidate(f"statistics: histograms on {shown}", "statistics", note, {}, ";\n".join(apply) + ";",
                     scope="global", extra={"analyze": apply, "undo": undo, "columns": columns})  # fmt: skip
