"""The truth set's staging servers (bench/check_truth.py): what each one is planted with (startup
options, accounts, schema, workload) and each planted item with the finding it must give on a check,
made by hand for issue 45 (none taken from a test). Statements here run only on the staging servers
the bench starts."""

from dataclasses import dataclass, field

READER, PASSWORD = "stager", "read only #45"


@dataclass(frozen=True)
class Planted:
    """A planted item and the finding it must give on check `check`: a finding whose severity is one
    of `severities`, whose kind is `kind` (None: any) and whose subject matches `subject` (a
    regular expression, case-insensitive)."""

    item: str
    check: str
    severities: tuple[str, ...]
    kind: str | None
    subject: str


@dataclass
class Staging:
    """A staging server: its lab binary, port, startup options, the SQL that plants it (as its
    admin), the workload (statement, times) and the checks it gets."""

    name: str
    lab: str
    port: int
    options: list[str]
    setup: list[str]
    workload: list[tuple[str, int]]
    checks: list[str]
    planted: list[Planted]
    reader_grants: list[str] = field(default_factory=list)


def _grants(flavor: str) -> list[str]:
    """What the capture's read-only account needs (README: capture): performance_schema, the
    accounts, the lab's database, and a read-only dump of the team's `shop`."""
    account = f"'{READER}'@'127.0.0.1'"
    routines = "GRANT SELECT ON mysql.proc TO " if flavor == "mariadb" else "GRANT SHOW_ROUTINE ON *.* TO "
    return [
        f"CREATE USER {account} IDENTIFIED BY '{PASSWORD}'",
        f"GRANT SELECT ON performance_schema.* TO {account}",
        f"GRANT SELECT ON mysql.user TO {account}",
        f"GRANT SELECT ON labdb.* TO {account}",
        f"GRANT SELECT, SHOW VIEW, TRIGGER, EVENT ON shop.* TO {account}",
        routines + account,
    ]


M11, M97 = "mariadb-11.8", "mysql-9.7"
# 21 statements: six the new MySQL refuses (planted), fifteen it takes
MARIADB_WORKLOAD = [
    "SELECT qualify, n FROM shop.results WHERE id = 7",
    "SELECT id FROM shop.results ORDER BY rank DESC LIMIT 5",
    "SELECT lateral FROM shop.results WHERE id = 3",
    "SELECT MD5(name) FROM shop.customers WHERE id = 2",
    "SELECT price FROM shop.prices FOR SYSTEM_TIME ALL WHERE id = 1",
    "SELECT NEXT VALUE FOR shop.order_seq",
    "SELECT id, total FROM shop.orders WHERE id = 1",
    "SELECT COUNT(*) FROM shop.orders",
    "SELECT name, email FROM shop.customers WHERE id = 3",
    "SELECT SUM(total) FROM shop.orders WHERE customer_id = 2",
    "SELECT id FROM shop.big_orders ORDER BY id",
    "SELECT customer_id, total FROM shop.orders WHERE total > 5",
    "SELECT price FROM shop.prices WHERE id = 1",
    "SELECT id, `qualify` FROM shop.results WHERE id = 8",  # quoted: parses everywhere
    "SELECT MAX(total) FROM shop.orders",
    "SELECT id, name FROM shop.customers ORDER BY name",
    "SELECT AVG(n) FROM shop.results",
    "SELECT c.name, o.total FROM shop.customers c JOIN shop.orders o ON o.customer_id = c.id",
    "SELECT total FROM shop.big_orders WHERE id = 2",
    "SELECT MIN(price) FROM shop.prices",
    "SELECT COUNT(DISTINCT customer_id) FROM shop.orders",
]

# MariaDB 10.11's latin1 default: new tables get utf8mb4 on either new version
UTF8MB4 = [
    Planted("latin1 -> utf8mb4 for new tables", new, ("changes_results",), "charset", "character_set_server")
    for new in (M11, M97)
]

STAGING = [
    Staging(
        name="staging-mariadb",
        lab="mariadb-10.11",
        port=31531,
        options=[
            "innodb_defragment=1",
            "old_alter_table=1",
            "innodb_change_buffering=all",
            "sql_mode=STRICT_TRANS_TABLES,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION",
            "performance_schema=ON",
            "performance-schema-consumer-events-statements-current=ON",
            "performance-schema-consumer-events-statements-history-long=ON",
        ],
        setup=[
            "INSTALL SONAME 'auth_ed25519'",
            "CREATE DATABASE shop",
            "CREATE TABLE shop.customers (id INT PRIMARY KEY, name VARCHAR(40), email VARCHAR(80))",
            "CREATE TABLE shop.orders (id INT PRIMARY KEY, customer_id INT, total DECIMAL(10,2))",
            "CREATE TABLE shop.results (id INT PRIMARY KEY, qualify INT, `rank` INT, `lateral` INT, n INT)",
            "CREATE SEQUENCE shop.order_seq START WITH 1000",
            "CREATE TABLE shop.prices (id INT PRIMARY KEY, price INT) WITH SYSTEM VERSIONING",
            "INSERT INTO shop.customers VALUES (1, 'a', 'a@x'), (2, 'b', 'b@x'), (3, 'c', 'c@x')",
            "INSERT INTO shop.orders VALUES (1, 1, 10), (2, 2, 20.5), (3, 3, 7)",
            "INSERT INTO shop.results VALUES (3, 1, 2, 3, 4), (7, 5, 6, 7, 8), (8, 9, 1, 2, 3)",
            "INSERT INTO shop.prices VALUES (1, 10)",
            "UPDATE shop.prices SET price = 12 WHERE id = 1",
            "CREATE VIEW shop.big_orders AS SELECT id, total FROM shop.orders WHERE total > 8",
            "CREATE PROCEDURE shop.top_results()\nBEGIN\n  SELECT id, qualify FROM shop.results\n"
            "  WHERE qualify > 2 ORDER BY qualify;\nEND",
            # its body parses on 9.7; SFORMAT() (MariaDB 10.7+) fails at every call there
            "CREATE FUNCTION shop.label(n INT) RETURNS VARCHAR(40) DETERMINISTIC\n"
            "RETURN SFORMAT('order {}', n)",
            "CREATE TRIGGER shop.orders_total BEFORE INSERT ON shop.orders FOR EACH ROW "
            "SET NEW.total = GREATEST(NEW.total, 0)",
            "CREATE EVENT shop.purge ON SCHEDULE EVERY 1 DAY DO DELETE FROM shop.orders WHERE total = 0",
            "CREATE USER 'legacy'@'%' IDENTIFIED VIA mysql_native_password USING PASSWORD('legacy #1')",
            "CREATE USER 'edd'@'%' IDENTIFIED VIA ed25519 USING PASSWORD('edd #1')",
            "CREATE USER ''@'localhost'",  # anonymous: a hygiene note, never "locks users out"
            "CREATE ROLE app_reader",  # a role: not a login
            "GRANT SELECT ON shop.* TO app_reader",
        ],
        workload=[(statement, 400) for statement in MARIADB_WORKLOAD],
        checks=[M11, M97],
        planted=[
            Planted(
                "innodb_defragment=1 (11.8 takes it and ignores it: removed in 11.1)",
                M11,
                ("changes_behaviour", "changes_performance"),
                "option",
                "defragment",
            ),
            Planted(
                "innodb_defragment=1 (MySQL has none)",
                M97,
                ("does_not_start",),
                "option",
                "defragment",
            ),
            Planted(
                "old_alter_table=1 (removed in 11.x)",
                M11,
                ("does_not_start",),
                "option",
                "old.alter.table",
            ),
            Planted(
                "innodb_change_buffering=all (11.8 ignores it)",
                M11,
                ("changes_behaviour", "changes_performance"),
                "option",
                "change.buffering",
            ),
            Planted(
                "sql_mode NO_AUTO_CREATE_USER (the line)",
                M97,
                ("does_not_start",),
                "option",
                "sql.mode",
            ),
            Planted(
                "sql_mode NO_AUTO_CREATE_USER",
                M97,
                ("changes_results",),
                "sql_mode",
                "NO_AUTO_CREATE_USER",
            ),
            Planted(
                "sql_mode NO_AUTO_CREATE_USER (the routines' own)",
                M97,
                ("does_not_load",),
                "schema",
                r"SET sql_mode = .*NO_AUTO_CREATE_USER",
            ),
            Planted(
                "'legacy' on mysql_native_password",
                M97,
                ("locks_out",),
                "account",
                "mysql_native_password",
            ),
            Planted(
                "'edd' on ed25519 (gone from MySQL)",
                M97,
                ("locks_out",),
                "account",
                "ed25519",
            ),
            Planted(
                "'edd' on ed25519 (not loaded on 11.8)",
                M11,
                ("locks_out",),
                "account",
                "ed25519",
            ),
            *(
                Planted("the anonymous account: a note", new, ("note",), "account", "''@'localhost'")
                for new in (M11, M97)
            ),
            Planted(
                "column qualify",
                M97,
                ("changes_results",),
                "identifier",
                r"column qualify\b",
            ),
            Planted("column rank", M97, ("changes_results",), "identifier", r"column rank\b"),
            Planted(
                "column lateral",
                M97,
                ("changes_results",),
                "identifier",
                r"column lateral\b",
            ),
            Planted(
                "the SEQUENCE",
                M97,
                ("does_not_load",),
                "schema",
                r"sequence shop\.order_seq",
            ),
            Planted(
                "the system-versioned table",
                M97,
                ("does_not_load",),
                "schema",
                r"table shop\.prices",
            ),
            Planted(
                "SFORMAT() called in a function", M97, ("does_not_load",), "schema", r"function shop\.label"
            ),
            Planted(
                "qualify unquoted in the procedure",
                M97,
                ("does_not_load",),
                "schema",
                "procedure shop.top_results",
            ),
            Planted(
                "qualify unquoted in a statement",
                M97,
                ("does_not_load",),
                "statement",
                r"SELECT qualify, n",
            ),
            Planted(
                "rank unquoted in a statement",
                M97,
                ("does_not_load",),
                "statement",
                r"ORDER BY rank",
            ),
            Planted(
                "lateral unquoted in a statement",
                M97,
                ("does_not_load",),
                "statement",
                r"SELECT lateral FROM",
            ),
            Planted(
                "MD5() in a statement",
                M97,
                ("does_not_load",),
                "statement",
                r"MD5\(name\)",
            ),
            Planted(
                "FOR SYSTEM_TIME in a statement",
                M97,
                ("does_not_load",),
                "statement",
                "FOR SYSTEM_TIME",
            ),
            Planted(
                "NEXT VALUE FOR in a statement",
                M97,
                ("does_not_load",),
                "statement",
                "NEXT VALUE FOR",
            ),
            Planted(
                "innodb_snapshot_isolation ON in 11.8",
                M11,
                ("changes_results",),
                "default",
                "snapshot_isolation",
            ),
            *UTF8MB4,
        ],
        reader_grants=_grants("mariadb"),
    ),
    Staging(
        name="staging-stock",
        lab="mariadb-10.11",
        port=31532,
        options=["performance_schema=ON"],
        setup=[
            "CREATE DATABASE shop",
            "CREATE TABLE shop.sessions (id INT PRIMARY KEY, token UUID, peer INET6) ENGINE=InnoDB",
            "CREATE TABLE shop.cache (k INT PRIMARY KEY, v BLOB) ENGINE=Aria",
        ],
        workload=[
            ("SELECT COUNT(*) FROM shop.sessions", 50),
            ("SELECT v FROM shop.cache WHERE k = 1", 50),
        ],
        checks=[M97, M11],
        planted=[
            Planted(
                "the statement history off (empty workload)",
                M97,
                ("note",),
                "workload",
                "workload",
            ),
            Planted(
                "the statement history off (empty workload)",
                M11,
                ("note",),
                "workload",
                "workload",
            ),
            Planted(
                "UUID and INET6 columns",
                M97,
                ("does_not_load",),
                "schema",
                r"table shop\.sessions",
            ),
            Planted("an Aria table", M97, ("does_not_load",), "schema", r"table shop\.cache"),
            *UTF8MB4,
        ],
        reader_grants=_grants("mariadb"),
    ),
    Staging(
        name="staging-mysql",
        lab="mysql-9.7",
        port=31533,
        options=["sql_require_primary_key=ON", "innodb_redo_log_capacity=209715200"],
        setup=[
            "CREATE DATABASE shop",
            "CREATE TABLE shop.docs (id INT PRIMARY KEY, doc JSON, n INT, KEY fx ((n + 1)))",
            "INSERT INTO shop.docs VALUES (1, '{\"a\": 1}', 1), (2, '{\"a\": 2}', 2)",
            "CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20))",
            "INSERT INTO shop.items VALUES (1, 'x'), (2, 'y')",
            "CREATE VIEW shop.doc_a AS SELECT id, doc->>'$.a' AS a FROM shop.docs",
            "CREATE PROCEDURE shop.pairs() SELECT * FROM (VALUES ROW(1, 2), ROW(3, 4)) AS t",
            "CREATE USER 'app'@'%' IDENTIFIED BY 'app #1'",  # caching_sha2_password, MySQL's default
        ],
        workload=[
            ("SELECT doc->>'$.a' FROM shop.docs WHERE id = 1", 200),
            (
                "SELECT d.id, l.x FROM shop.docs d, LATERAL (SELECT d.n + 1 AS x) AS l",
                200,
            ),
            ("TABLE shop.items", 200),
            ("SELECT name FROM shop.items WHERE id = 2", 200),
            ("SELECT a FROM shop.doc_a WHERE id = 2", 200),
        ],
        checks=[M11, M97],
        planted=[
            Planted(
                "sql_require_primary_key=ON (MySQL's)",
                M11,
                ("does_not_start",),
                "option",
                "require.primary.key",
            ),
            Planted(
                "innodb_redo_log_capacity (MySQL's)",
                M11,
                ("does_not_start",),
                "option",
                "redo.log.capacity",
            ),
            Planted(
                "'app' on caching_sha2_password",
                M11,
                ("locks_out",),
                "account",
                "caching_sha2_password",
            ),
            Planted(
                "a functional index",
                M11,
                ("does_not_load",),
                "schema",
                r"table shop\.docs",
            ),
            Planted(
                "VALUES ROW() in the procedure",
                M11,
                ("does_not_load",),
                "schema",
                r"procedure shop\.pairs",
            ),
            Planted("->> in a statement", M11, ("does_not_load",), "statement", r"doc->>"),
            Planted(
                "LATERAL in a statement",
                M11,
                ("does_not_load",),
                "statement",
                "LATERAL",
            ),
            Planted(
                "TABLE in a statement",
                M11,
                ("does_not_load",),
                "statement",
                r"^TABLE shop\.items",
            ),
        ],
        reader_grants=_grants("mysql"),
    ),
]
