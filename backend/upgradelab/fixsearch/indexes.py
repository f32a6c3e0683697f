"""Index candidates (issue 46, Deliver 6), and the columns a statement filters on read through its views.

Which columns: those the statement's WHERE and ON conditions name (histograms.py `resolved`), a
view's column followed to the table column it selects (a plain `t.c AS name` item of its body,
views.py), and the view body's own ON and WHERE columns, since a merged view's joins are the
statement's (`filtered_through_views`). The statistics candidate takes the same columns (a view has
no histogram: ANALYZE on a view fails).

Where an index is proposed, on table T and column C the statement filters on, when no index of T
starts with C (information_schema.STATISTICS, the variant's) and either the variant's plan scans T
(access ALL or index) or the baseline's plan starts from T (its first table: a filter on it is where
the baseline's join order begins, as 10.11's `country` in a Sakila-like customer_list, the column
none of its indexes covers). The baseline's plan reading T by an index the variant's plan scans past
is the index hint's case (candidates.py: the index exists, the variant's dataset is the baseline's),
not a new index. At most MAX_INDEXES, the baseline's first table first.

What to apply: `CREATE INDEX fix_<table>_<column> ON db.t (c)` (a prefix of PREFIX characters for a
TEXT or BLOB column); how to undo: `DROP INDEX ... ON db.t`. Scope "global" (a schema change): measured
on the variant's second instance like the statistics (second.py), its size read there after it is made
(mysql.innodb_index_stats, `size` pages x innodb_page_size: InnoDB computes it as the index is built),
and a restoring one checked on the whole replay (its side effects on the other fingerprints). A
replay with writes (allow_writes) has them left out of the search's read-only connections: their cost
with the index is not measured, and the trial says which.
"""

from dataclasses import dataclass

from upgradelab.fixsearch.candidates import Candidate
from upgradelab.fixsearch.histograms import references, resolved
from upgradelab.fixsearch.views import View, parse_body, quoted, tokens
from upgradelab.measurement import PlanStep

MAX_INDEXES = 3
PREFIX = 64
SCANS = ("ALL", "index")
_PREFIXED = ("text", "tinytext", "mediumtext", "longtext", "blob", "tinyblob", "mediumblob", "longblob")
_NOT_INDEXED = ("json", "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring",
                "multipolygon", "geometrycollection", "vector")  # fmt: skip


@dataclass(frozen=True)
class Schema:
    """What the variant's information_schema says of the statement's database: {table or view: its
    columns}, {view: View}, {table: [each index's columns in order]}, {(table, column): DATA_TYPE}."""

    columns: dict[str, set[str]]
    views: dict[str, View]
    indexes: dict[str, list[list[str]]]
    types: dict[tuple[str, str], str]


def view_columns(view: View) -> dict[str, tuple[str, str]]:
    """{the view's column: (table, column)} for each select item that is a plain column of a table
    of its body; the others (expressions) are left out."""
    body = parse_body(view.definition)
    by_named = {t.named: t.name for t in body.tables}
    out = {}
    for item, column in zip(body.items, view.columns, strict=False):
        parts = [p for p in tokens(item) if p != "."]
        words = [p.lower() for p in parts]
        lead = parts[: words.index("as")] if "as" in words else parts
        names = [p.strip("`") for p in lead]
        if len(names) >= 2 and all(p.startswith("`") for p in lead) and names[-2] in by_named:
            out[column] = (by_named[names[-2]], names[-1])
    return out


def filtered_through_views(sql: str, schema: Schema) -> dict[str, list[str]]:
    """{table: [columns]} the statement filters on (module docstring), views followed to their tables."""
    out: dict[str, list[str]] = {}

    def add(table: str, column: str) -> None:
        if table in schema.columns and table not in schema.views and column not in out.setdefault(table, []):
            out[table].append(column)

    for table, columns in resolved(sql, schema.columns).items():
        view = schema.views.get(table)
        if view is None:
            for column in columns:
                add(table, column)
            continue
        mapped = view_columns(view)
        for column in columns:
            if column in mapped:
                add(*mapped[column])
    for name in set(references(sql).values()) & set(schema.views):
        for table, columns in resolved(schema.views[name].definition, schema.columns).items():
            for column in columns:
                add(table, column)
    return {table: columns for table, columns in out.items() if columns}


def plan_tables(sql: str, schema: Schema) -> dict[str, str]:
    """{name as a plan calls it (alias or table): table} for the statement's tables and its views'."""
    out = {named: table for named, table in references(sql).items() if table not in schema.views}
    for name in set(references(sql).values()) & set(schema.views):
        out.update({t.named: t.name for t in parse_body(schema.views[name].definition).tables})
    return out


def index_name(table: str, column: str) -> str:
    """`fix_<table>_<column>`, at most 64 characters (the servers' identifier limit)."""
    return f"fix_{table}_{column}"[:64]


def index_candidates(
    database: str, sql: str, schema: Schema, baseline: list[PlanStep], variant: list[PlanStep]
) -> list[Candidate]:
    """The indexes to try (module docstring), in order; [] when none fits."""
    tables = plan_tables(sql, schema)
    first = tables.get(baseline[0].table) if baseline else None
    scanned = {tables[s.table] for s in variant if s.table in tables and s.access_type in SCANS}
    wanted = [t for t in ([first] if first else []) + sorted(scanned - {first}) if t]
    filtered = filtered_through_views(sql, schema)
    out = []
    for table in wanted:
        for column in filtered.get(table, []):
            kind = schema.types.get((table, column), "").lower()
            covered = any(columns and columns[0] == column for columns in schema.indexes.get(table, []))
            if covered or kind in _NOT_INDEXED:
                continue
            out.append(_candidate(database, table, column, kind, first == table))
    return out[:MAX_INDEXES]


def _candidate(database: str, table: str, column: str, kind: str, first: bool) -> Candidate:
    name = index_name(table, column)
    target = f"{quoted(database)}.{quoted(table)}"
    part = f"{quoted(column)}({PREFIX})" if kind in _PREFIXED else quoted(column)
    create = f"CREATE INDEX {quoted(name)} ON {target} ({part})"
    drop = f"DROP INDEX {quoted(name)} ON {target}"
    where = "the baseline's plan starts from it" if first else "the variant's plan scans it"
    note = f"the statement filters on {table}.{column}, which no index covers, and {where}"
    return Candidate(f"index {name} on {table} ({column})", "index", note, {}, create + ";", scope="global",
                     extra={"statements": [create], "undo": [drop],
                            "index": {"table": table, "name": name, "columns": [column]}})  # fmt: skip
