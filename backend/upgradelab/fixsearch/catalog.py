"""What the variant's information_schema says of the statement's database, read once at the search's
start (runner.py) as the lab's admin (the replay's account may not see a view's definition: MySQL
shows VIEW_DEFINITION only to its definer or with SHOW VIEW): every table's and view's columns with
their types (COLUMNS), every index's columns in order (STATISTICS), and the views the statement reads
(VIEWS.VIEW_DEFINITION, their columns in order, SHOW CREATE VIEW for the undo). The candidates built
from it: histograms.py (statistics), indexes.py (an index), views.py (a view rewritten or inlined)."""

from typing import Any

from upgradelab.fixsearch.histograms import references
from upgradelab.fixsearch.indexes import Schema
from upgradelab.fixsearch.views import View, quoted


def read_schema(connection: Any, database: str, sql: str) -> Schema:
    """The Schema of `database` for statement `sql` (module docstring) on a pymysql connection;
    pymysql.MySQLError passes through."""
    columns: dict[str, set[str]] = {}
    ordered: dict[str, list[str]] = {}
    types: dict[tuple[str, str], str] = {}
    indexes: dict[str, dict[str, list[str]]] = {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS "
            "WHERE TABLE_SCHEMA = %s ORDER BY TABLE_NAME, ORDINAL_POSITION",
            (database,),
        )
        for table, column, kind in cursor.fetchall():
            columns.setdefault(str(table), set()).add(str(column))
            ordered.setdefault(str(table), []).append(str(column))
            types[(str(table), str(column))] = str(kind)
        cursor.execute(
            "SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS "
            "WHERE TABLE_SCHEMA = %s ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX",
            (database,),
        )
        for table, index, column in cursor.fetchall():
            indexes.setdefault(str(table), {}).setdefault(str(index), []).append(str(column))
        cursor.execute(
            "SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = %s",
            (database,),
        )
        read = set(references(sql).values())
        views = {}
        for name, definition in cursor.fetchall():
            if str(name) not in read:
                continue
            cursor.execute(f"SHOW CREATE VIEW {quoted(database)}.{quoted(str(name))}")
            create = str(cursor.fetchone()[1])
            views[str(name)] = View(database, str(name), str(definition), ordered.get(str(name), []), create)
    return Schema(columns, views, {t: list(found.values()) for t, found in indexes.items()}, types)


def index_size(connection: Any, database: str, table: str, index: str) -> int | None:
    """An InnoDB index's size in bytes (mysql.innodb_index_stats `size` pages x innodb_page_size),
    None when the server keeps no such statistic (another engine, persistent statistics off)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT stat_value * @@innodb_page_size FROM mysql.innodb_index_stats WHERE database_name = %s "
            "AND table_name = %s AND index_name = %s AND stat_name = 'size'",
            (database, table, index),
        )
        row = cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else None
