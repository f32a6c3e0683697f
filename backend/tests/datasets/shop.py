"""The tests' own dump: a `shop` schema made on MariaDB 10.11 and dumped with its mariadb-dump.

It holds what breaks naive loaders: two triggers, a procedure and a function (mariadb-dump writes
them with `DELIMITER ;;`), a view, a spatial column with a SPATIAL index, version comments, and
~3 MB of extended INSERTs. Regions are inserted in the order west, east, north, south so a GROUP BY
region without ORDER BY comes back in another order where the server does not sort groups.
"""

import subprocess
from pathlib import Path

from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.provisioners.base import client_flags
from upgradelab.workloads.base import execute

CUSTOMERS = 2000
ORDERS = 40000
REGIONS = ["west", "east", "north", "south"]

SCHEMA = [
    # MariaDB's default sql_mode has NO_AUTO_CREATE_USER, which MySQL 8.0 removed: routines and
    # triggers made under it are dumped with it and do not load on MySQL 9.7 (ERROR 1231). The shop
    # is made under a mode both take, as a team moving between the two would have to.
    "SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
    "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, email VARCHAR(128) NOT NULL, "
    "region VARCHAR(16) NOT NULL, created DATE NOT NULL, KEY k_region (region), KEY k_created (created))",
    "CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT NOT NULL, amount DECIMAL(10,2) NOT NULL, "
    "status VARCHAR(16) NOT NULL, created DATETIME NOT NULL, note VARCHAR(80) NOT NULL DEFAULT '', "
    "KEY k_customer (customer_id), KEY k_status_created (status, created), KEY k_amount (amount))",
    "CREATE TABLE places (id INT PRIMARY KEY, customer_id INT NOT NULL, pt POINT NOT NULL, "
    "SPATIAL INDEX (pt))",
    "CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, order_id INT NOT NULL, "
    "what VARCHAR(16) NOT NULL)",
    "CREATE VIEW customer_totals AS SELECT c.id, c.region, COUNT(o.id) AS orders, SUM(o.amount) AS total "
    "FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.id, c.region",
    "CREATE TRIGGER orders_bi BEFORE INSERT ON orders FOR EACH ROW "
    "SET NEW.note = IF(NEW.note = '', CONCAT('order ', NEW.id), NEW.note)",
    "CREATE TRIGGER orders_ai AFTER INSERT ON orders FOR EACH ROW "
    "INSERT INTO audit (order_id, what) VALUES (NEW.id, 'insert')",
    "CREATE FUNCTION order_band(amount DECIMAL(10,2)) RETURNS VARCHAR(8) DETERMINISTIC "
    "BEGIN IF amount >= 500 THEN RETURN 'high'; END IF; IF amount >= 100 THEN RETURN 'mid'; END IF; "
    "RETURN 'low'; END",
    "CREATE PROCEDURE region_orders(IN want VARCHAR(16), OUT n INT) READS SQL DATA "
    "BEGIN SELECT COUNT(*) INTO n FROM orders o JOIN customers c ON c.id = o.customer_id "
    "WHERE c.region = want; END",
]

DATA = [
    # seq_1_to_N: MariaDB's Sequence engine, where the dump is made
    f"INSERT INTO customers SELECT seq, CONCAT('customer ', seq), CONCAT('c', seq, '@example.test'), "
    f"ELT(1 + (seq - 1) % 4, {', '.join(repr(r) for r in REGIONS)}), "
    f"DATE('2020-01-01') + INTERVAL (seq * 7) % 1800 DAY FROM seq_1_to_{CUSTOMERS}",
    f"INSERT INTO orders (id, customer_id, amount, status, created, note) SELECT seq, "
    f"1 + (seq * 7919) % {CUSTOMERS}, ROUND(((seq * 104729) % 100000) / 100, 2), "
    "ELT(1 + (seq * 31) % 10, 'new','paid','paid','shipped','shipped','shipped','shipped','done','done',"
    "'cancelled'), TIMESTAMP('2021-01-01') + INTERVAL (seq * 613) % 94608000 SECOND, "
    f"IF(seq % 3 = 0, '', RPAD(CONCAT('note ', seq, ' '), 60, 'x')) FROM seq_1_to_{ORDERS}",
    "INSERT INTO places SELECT seq, seq, POINT(CAST(seq % 360 AS SIGNED) - 180, "
    f"CAST(seq % 170 AS SIGNED) - 85) FROM seq_1_to_{CUSTOMERS}",
    "ANALYZE TABLE customers, orders, places",
]


def make_shop_dump(provisioner: LocalProvisioner, path: Path) -> Path:
    """Create `shop` on a fresh MariaDB 10.11 server and write `mariadb-dump --routines --triggers shop`
    to `path` (no CREATE DATABASE: the loader picks the database). The server is stopped after."""
    endpoint = provisioner.start([])
    try:
        connection = endpoint.connect()
        execute(connection, "DROP DATABASE IF EXISTS shop", "CREATE DATABASE shop")
        connection.select_db("shop")
        execute(connection, *SCHEMA, *DATA)
        connection.close()
        with path.open("wb") as out:
            subprocess.run(
                [
                    "mariadb-dump",
                    *client_flags(endpoint.host, endpoint.port, endpoint.user, connect_timeout=False),
                    "--routines",
                    "--triggers",
                    "--events",
                    "shop",
                ],
                stdout=out,
                env=endpoint.client_env(),
                check=True,
            )
    finally:
        provisioner.stop()
    return path
