"""The planted datasets of issue 46's real-server fix search tests, apart from the test modules (which
import the session's conftest): bench/fix_search_cost.py plants the same cases with them.

- DERIVED_DUMP: t (400 rows, KEY g): a derived-table query reads it in microseconds; with
  optimizer_switch='derived_merge=off' the derived table is materialized (`<derived2>`).
- `sakila_like()`: customer, address, city, country and the customer_list view, as Sakila has them
  (its foreign-key indexes, none on country.country): MariaDB 10.11 joins the view from country,
  11.8 from customer; VIEW_QUERY reads it by country."""

DERIVED_DUMP = (
    "CREATE TABLE t (id INT PRIMARY KEY, g INT NOT NULL, v INT NOT NULL, KEY g (g));\n"
    f"INSERT INTO t VALUES {', '.join(f'({n}, {n % 20}, {n * 7 % 100})' for n in range(1, 401))};\n"
).encode()


def sakila_like() -> bytes:
    """customer, address, city, country as Sakila has them (its foreign-key indexes, no index on
    country.country) and its customer_list view, with generated rows (109 countries, 600 cities)."""
    countries = ", ".join(f"({n}, 'Country{n:03d}')" for n in range(1, 110))
    cities = ", ".join(f"({n}, 'City{n:03d}', {n * 37 % 109 + 1})" for n in range(1, 601))
    addresses = ", ".join(f"({n}, '{n} Main St', {n * 53 % 600 + 1}, '555{n:07d}')" for n in range(1, 604))
    customers = ", ".join(
        f"({n}, 'F{n}', 'L{n}', {n % 603 + 1}, {1 if n % 40 else 0})" for n in range(1, 600)
    )
    small = "SMALLINT UNSIGNED NOT NULL"
    lines = [
        f"CREATE TABLE country (country_id {small} PRIMARY KEY, country VARCHAR(50) NOT NULL);",
        f"CREATE TABLE city (city_id {small} PRIMARY KEY, city VARCHAR(50) NOT NULL, country_id {small}, "
        "KEY idx_fk_country_id (country_id));",
        f"CREATE TABLE address (address_id {small} PRIMARY KEY, address VARCHAR(50) NOT NULL, "
        f"city_id {small}, phone VARCHAR(20) NOT NULL, KEY idx_fk_city_id (city_id));",
        f"CREATE TABLE customer (customer_id {small} PRIMARY KEY, first_name VARCHAR(45) NOT NULL, "
        f"last_name VARCHAR(45) NOT NULL, address_id {small}, active BOOLEAN NOT NULL, "
        "KEY idx_fk_address_id (address_id));",
        f"INSERT INTO country VALUES {countries};",
        f"INSERT INTO city VALUES {cities};",
        f"INSERT INTO address VALUES {addresses};",
        f"INSERT INTO customer VALUES {customers};",
        "CREATE VIEW customer_list AS SELECT cu.customer_id AS ID, CONCAT(cu.first_name, ' ', cu.last_name) "
        "AS name, a.address AS address, a.phone AS phone, city.city AS city, country.country AS country, "
        "IF(cu.active, 'active', '') AS notes FROM customer AS cu JOIN address AS a ON cu.address_id = "
        "a.address_id JOIN city ON a.city_id = city.city_id JOIN country "
        "ON city.country_id = country.country_id;",
    ]
    return ("\n".join(lines) + "\n").encode()


VIEW_QUERY = "SELECT * FROM customer_list WHERE country = 'Country007'"
