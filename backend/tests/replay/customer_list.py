"""A dump shaped like the public Sakila sample's customer side (country, city, address, customer and
its `customer_list` view over the four), written as plain SQL with Sakila's row counts and indexes,
for issue 46's view query: `SELECT * FROM customer_list WHERE country = ?`.

On it MariaDB 10.11 starts the view's join from country (109 rows, no index on the name: a scan)
and reads city, address and customer by their foreign-key indexes; MariaDB 11.8's cost model starts
from customer (599 rows) and reads the others by primary key: the same rows in another order (the
view has no ORDER BY) and, measured by hand on the lab's servers, 6-6.7x slower (rows examined 11x).
"""

from pathlib import Path

COUNTRIES, CITIES, ADDRESSES, CUSTOMERS = 109, 600, 603, 599
VIEW_QUERY = "SELECT * FROM customer_list WHERE country = 'Country 044'"
SCHEMA = [
    "CREATE TABLE country (country_id SMALLINT UNSIGNED NOT NULL PRIMARY KEY, country VARCHAR(50) NOT NULL)",
    "CREATE TABLE city (city_id SMALLINT UNSIGNED NOT NULL PRIMARY KEY, city VARCHAR(50) NOT NULL, "
    "country_id SMALLINT UNSIGNED NOT NULL, KEY idx_fk_country_id (country_id))",
    "CREATE TABLE address (address_id SMALLINT UNSIGNED NOT NULL PRIMARY KEY, address VARCHAR(50) NOT NULL, "
    "district VARCHAR(20) NOT NULL, city_id SMALLINT UNSIGNED NOT NULL, postal_code VARCHAR(10) DEFAULT "
    "NULL, phone VARCHAR(20) NOT NULL, KEY idx_fk_city_id (city_id))",
    "CREATE TABLE customer (customer_id SMALLINT UNSIGNED NOT NULL PRIMARY KEY, store_id TINYINT UNSIGNED "
    "NOT NULL, first_name VARCHAR(45) NOT NULL, last_name VARCHAR(45) NOT NULL, email VARCHAR(50) DEFAULT "
    "NULL, address_id SMALLINT UNSIGNED NOT NULL, active TINYINT(1) NOT NULL DEFAULT 1, KEY idx_fk_store_id "
    "(store_id), KEY idx_fk_address_id (address_id), KEY idx_last_name (last_name))",
    "CREATE VIEW customer_list AS SELECT cu.customer_id AS ID, CONCAT(cu.first_name, ' ', cu.last_name) AS "
    "name, a.address AS address, a.postal_code AS `zip code`, a.phone AS phone, city.city AS city, "
    "country.country AS country, IF(cu.active, 'active', '') AS notes, cu.store_id AS SID FROM customer AS "
    "cu JOIN address AS a ON cu.address_id = a.address_id JOIN city ON a.city_id = city.city_id "
    "JOIN country ON city.country_id = country.country_id",
]


def _rows() -> dict[str, list[str]]:
    return {
        "country": [f"({n},'Country {n:03d}')" for n in range(1, COUNTRIES + 1)],
        "city": [f"({n},'City {n}',{1 + (n * 37) % COUNTRIES})" for n in range(1, CITIES + 1)],
        "address": [
            f"({n},'{n} Main Street','District {n % 50}',{1 + (n * 13) % CITIES},'{n * 7:05d}','555{n:07d}')"
            for n in range(1, ADDRESSES + 1)
        ],
        "customer": [
            f"({n},{1 + n % 2},'FIRST{n}','LAST{(n * 17) % CUSTOMERS}','c{n}@example.test',"
            f"{5 + (n * 11) % CUSTOMERS},{int(n % 40 != 0)})"
            for n in range(1, CUSTOMERS + 1)
        ],
    }


def write_dump(path: Path) -> Path:
    """The dump at `path` (plain SQL both MySQL 9.7 and MariaDB load; no database named: the loader
    picks it)."""
    columns = {
        "country": "(country_id, country)",
        "city": "(city_id, city, country_id)",
        "address": "(address_id, address, district, city_id, postal_code, phone)",
        "customer": "(customer_id, store_id, first_name, last_name, email, address_id, active)",
    }
    lines = [f"{statement};" for statement in SCHEMA[:4]]
    for table, rows in _rows().items():
        lines.append(f"INSERT INTO {table} {columns[table]} VALUES {','.join(rows)};")
    lines.append(f"{SCHEMA[4]};")
    path.write_text("\n".join(lines) + "\n")
    return path
