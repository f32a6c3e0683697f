"""Statistics settled before a replay measures: right after a dump loads, InnoDB's persistent
statistics may not be computed yet (the optimizer then estimates "1 row" for a table of thousands
and picks a plan that a replay minutes later would not), and a kept datadir's statistics date from
whenever they were last computed. ANALYZE TABLE on every table of the dataset, on every variant,
before the first outcome, makes a plan the version's and not the moment's.
"""

from datetime import UTC, datetime

from upgradelab.datasets.loader import TableStats
from upgradelab.targets.provisioners.base import ServerConnection


def analyze_tables(connection: ServerConnection, tables: list[TableStats]) -> datetime:
    """ANALYZE TABLE every table (persistent statistics: InnoDB's, and MariaDB's engine-independent
    ones); when that finished (UTC). A table the server cannot analyse answers a message row, not an
    error, and is left as it is."""
    by_schema: dict[str, list[str]] = {}
    for table in tables:
        by_schema.setdefault(table.schema, []).append(table.name)
    with connection.cursor() as cursor:
        for schema, names in by_schema.items():
            quoted = ", ".join(f"`{schema.replace('`', '``')}`.`{name.replace('`', '``')}`" for name in names)
            cursor.execute(f"ANALYZE TABLE {quoted}")
            cursor.fetchall()
    return datetime.now(UTC)
