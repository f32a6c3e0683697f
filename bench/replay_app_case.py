"""A case no test planted (issue 46): an application's schema and queries written as a shop's
backend would run them, replayed on MariaDB 10.11 (the baseline), a second 10.11 instance (the A/A
control), MariaDB 11.8 and MySQL 9.7, at a replay's defaults (20 rounds x 2 passes, extended to 60
for the undecided).

The dump (written here, seeded): categories, 2,000 customers, 500 products, 40,000 orders, ~120,000
order items, 6,000 reviews, a view of order totals; secondary indexes as such an application has them
(some of the queries below find none). The queries: the shop's pages and reports (a product page,
a customer's last orders, a category listing with pagination, a search by LIKE, a dashboard's
aggregates by day and by status, a GROUP BY without ORDER BY, top sellers through the view, a
correlated subquery, a window function, a derived table, IN lists, ...), 24 of them, one statement
each.

Printed: per variant the summary line (every finding counted), the per-statement cost line, the
findings by cause; every fingerprint that changed with its findings and causes; the A/A control's
findings (each a false one: the A/A is the baseline again) and how many of the slower/faster findings
the stage rule named (cause "stage") against those left "time only". With --json FILE the report.

Run by hand (root, the lab installed), from the repository root:
    .venv/bin/python bench/replay_app_case.py [--rounds 20] [--max-rounds 60] [--json FILE]
Servers: /var/lib/upgradelab/bench-servers-stages, ports 36061-36064.
"""

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("UPGRADELAB_SERVER_DIR", "/var/lib/upgradelab/bench-servers-stages")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "backend"))
from power_checks import commit, load_average  # noqa: E402
from replay_stage_cost import lab_target  # noqa: E402

from upgradelab.cli.replay import also_text, summary_lines  # noqa: E402
from upgradelab.execution.schedule import plan  # noqa: E402
from upgradelab.measurement import (  # noqa: E402  # noqa: E402
    DumpDataset,
    Extension,
    ReplayVariant,
    file_sha256,
    parse_source,
    replay_rounds,
)
from upgradelab.replay.compare import compare  # noqa: E402
from upgradelab.replay.document import report_document  # noqa: E402
from upgradelab.replay.extension import still_undecided  # noqa: E402
from upgradelab.replay.schemas import DEFAULT_PASSES  # noqa: E402
from upgradelab.settings import get_settings  # noqa: E402
from upgradelab.targets.provisioners import LocalProvisioner  # noqa: E402

VARIANTS = {  # name: (target, port)
    "mariadb-10.11": ("mariadb-10.11", 36061),
    "mariadb-10.11 (A/A)": ("mariadb-10.11", 36062),
    "mariadb-11.8": ("mariadb-11.8", 36063),
    "mysql-9.7": ("mysql-9.7", 36064),
}
AA = "mariadb-10.11 (A/A)"
DATABASE = "shopapp"
SCHEMA = """
CREATE TABLE category (id INT PRIMARY KEY, parent_id INT NULL, name VARCHAR(60) NOT NULL);
CREATE TABLE customer (id INT PRIMARY KEY, email VARCHAR(120) NOT NULL, name VARCHAR(80) NOT NULL,
  country CHAR(2) NOT NULL, created_at DATETIME NOT NULL, status VARCHAR(12) NOT NULL,
  UNIQUE KEY uq_email (email), KEY k_country (country));
CREATE TABLE product (id INT PRIMARY KEY, category_id INT NOT NULL, sku VARCHAR(20) NOT NULL,
  title VARCHAR(120) NOT NULL, price DECIMAL(10,2) NOT NULL, stock INT NOT NULL, active TINYINT NOT NULL,
  UNIQUE KEY uq_sku (sku), KEY k_category (category_id));
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT NOT NULL, status VARCHAR(12) NOT NULL,
  created_at DATETIME NOT NULL, total DECIMAL(12,2) NOT NULL, KEY k_customer (customer_id),
  KEY k_created (created_at));
CREATE TABLE order_item (order_id INT NOT NULL, line INT NOT NULL, product_id INT NOT NULL,
  qty INT NOT NULL, price DECIMAL(10,2) NOT NULL, PRIMARY KEY (order_id, line), KEY k_product (product_id));
CREATE TABLE review (id INT PRIMARY KEY, product_id INT NOT NULL, customer_id INT NOT NULL,
  stars TINYINT NOT NULL, body VARCHAR(400) NOT NULL, created_at DATETIME NOT NULL,
  KEY k_product (product_id));
"""
VIEW = (
    "CREATE VIEW product_sales AS SELECT p.id, p.title, p.category_id, SUM(i.qty) AS units, "
    "SUM(i.qty * i.price) AS revenue FROM product p JOIN order_item i ON i.product_id = p.id "
    "GROUP BY p.id, p.title, p.category_id;"
)
QUERIES = (
    "SELECT id, title, price, stock FROM product WHERE id = 137",
    "SELECT p.id, p.title, p.price FROM product p WHERE p.category_id = 12 AND p.active = 1 ORDER BY "
    "p.price LIMIT 20 OFFSET 40",
    "SELECT o.id, o.created_at, o.total, o.status FROM orders o WHERE o.customer_id = 811 ORDER BY "
    "o.created_at DESC LIMIT 10",
    "SELECT id, title FROM product WHERE title LIKE '%steel%' AND active = 1 LIMIT 50",
    "SELECT DATE(created_at) AS day, COUNT(*), SUM(total) FROM orders WHERE created_at >= "
    "'2025-06-01' AND created_at < '2025-07-01' GROUP BY DATE(created_at) ORDER BY day",
    "SELECT status, COUNT(*) FROM orders GROUP BY status",
    "SELECT country, COUNT(*) AS n FROM customer WHERE status = 'active' GROUP BY country ORDER BY n "
    "DESC LIMIT 10",
    "SELECT id, title, units, revenue FROM product_sales WHERE category_id = 7 ORDER BY revenue DESC "
    "LIMIT 10",
    "SELECT c.id, c.name, (SELECT MAX(o.created_at) FROM orders o WHERE o.customer_id = c.id) AS "
    "last_order FROM customer c WHERE c.country = 'DE' ORDER BY c.id LIMIT 100",
    "SELECT p.id, p.title, AVG(r.stars) AS stars, COUNT(*) AS reviews FROM product p JOIN review r ON"
    " r.product_id = p.id GROUP BY p.id, p.title HAVING COUNT(*) >= 20 ORDER BY stars DESC LIMIT 20",
    "SELECT o.id, o.total, RANK() OVER (ORDER BY o.total DESC) AS r FROM orders o WHERE o.created_at "
    ">= '2025-12-01' ORDER BY r LIMIT 20",
    "SELECT t.customer_id, t.n FROM (SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY "
    "customer_id) t WHERE t.n > 30 ORDER BY t.n DESC, t.customer_id",
    "SELECT i.order_id, SUM(i.qty * i.price) FROM order_item i WHERE i.order_id IN (101, 2002, 3003, "
    "4004, 5005, 6006, 7007) GROUP BY i.order_id ORDER BY i.order_id",
    "SELECT COUNT(DISTINCT customer_id) FROM orders WHERE status = 'shipped'",
    "SELECT p.category_id, SUM(i.qty) FROM order_item i JOIN product p ON p.id = i.product_id JOIN "
    "orders o ON o.id = i.order_id WHERE o.created_at >= '2025-09-01' GROUP BY p.category_id ORDER BY"
    " p.category_id",
    "SELECT id, email FROM customer WHERE email = 'c1234@example.test'",
    "SELECT c.name, cat.name FROM category c LEFT JOIN category cat ON cat.id = c.parent_id ORDER BY c.id",
    "SELECT r.id, r.stars, r.created_at FROM review r WHERE r.product_id = 42 ORDER BY r.created_at "
    "DESC LIMIT 5",
    "SELECT product_id, COUNT(*) FROM order_item GROUP BY product_id ORDER BY COUNT(*) DESC LIMIT 10",
    "SELECT o.id FROM orders o WHERE o.status = 'pending' AND o.created_at < '2025-01-01' ORDER BY "
    "o.id LIMIT 100",
    "SELECT c.id, c.email FROM customer c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE "
    "o.customer_id = c.id) ORDER BY c.id LIMIT 50",
    "SELECT YEAR(created_at), MONTH(created_at), COUNT(*) FROM customer GROUP BY YEAR(created_at), "
    "MONTH(created_at) ORDER BY 1, 2",
    "SELECT p.id, p.title, p.stock FROM product p WHERE p.stock < 5 AND p.active = 1 ORDER BY p.stock, p.id",
    "SELECT AVG(total), MIN(total), MAX(total) FROM orders WHERE customer_id IN (SELECT id FROM "
    "customer WHERE country = 'FR')",
)
STATUSES = ["pending", "paid", "shipped", "shipped", "shipped", "delivered", "delivered", "cancelled"]
COUNTRIES = ["DE", "FR", "US", "GB", "IT", "ES", "NL", "PL", "SE", "AT"]
WORDS = ["steel", "oak", "linen", "copper", "glass", "wool", "cotton", "stone", "brass", "cedar"]


def write_dump(path: Path) -> None:
    """The application's dump (module docstring), seeded: the same rows every run."""
    rng = random.Random(46)
    out = [SCHEMA.strip()]

    def insert(table: str, rows: list[str]) -> None:
        for start in range(0, len(rows), 1000):
            out.append(f"INSERT INTO {table} VALUES {','.join(rows[start : start + 1000])};")

    insert(
        "category", [f"({i},{'NULL' if i <= 5 else rng.randint(1, 5)},'Category {i}')" for i in range(1, 41)]
    )
    insert("customer", [
        f"({i},'c{i}@example.test','Customer {i}','{rng.choice(COUNTRIES)}',"
        f"'2023-01-01' + INTERVAL {rng.randrange(1000)} DAY,'{rng.choice(['active'] * 9 + ['closed'])}')"
        for i in range(1, 2001)
    ])  # fmt: skip
    insert("product", [
        f"({i},{rng.randint(6, 40)},'SKU{i:05d}','{rng.choice(WORDS)} {rng.choice(WORDS)} item {i}',"
        f"{rng.randint(100, 50000) / 100},{rng.randint(0, 200)},{int(rng.random() < 0.9)})"
        for i in range(1, 501)
    ])  # fmt: skip
    orders, items = [], []
    for i in range(1, 40001):
        lines = rng.randint(1, 5)
        total = 0.0
        for line in range(1, lines + 1):
            price = rng.randint(100, 50000) / 100
            qty = rng.randint(1, 4)
            total += price * qty
            items.append(f"({i},{line},{rng.randint(1, 500)},{qty},{price})")
        orders.append(
            f"({i},{rng.randint(1, 1800)},'{rng.choice(STATUSES)}',"
            f"'2024-01-01' + INTERVAL {rng.randrange(730 * 24 * 60)} MINUTE,{total:.2f})"
        )
    insert("orders", orders)
    insert("order_item", items)
    insert("review", [
        f"({i},{rng.randint(1, 500)},{rng.randint(1, 2000)},{rng.randint(1, 5)},"
        f"'{' '.join(rng.choices(WORDS, k=12))}','2024-01-01' + INTERVAL {rng.randrange(700)} DAY)"
        for i in range(1, 6001)
    ])  # fmt: skip
    out.append(VIEW)
    path.write_text("\n".join(out) + "\n")


def provisioner(name: str) -> LocalProvisioner:
    target_name, port = VARIANTS[name]
    target = lab_target(target_name)
    settings = {**target["settings"], "port": port}
    suffix = "app-aa" if name == AA else "app"
    return LocalProvisioner(f"{target_name}-{suffix}", target["flavor"], settings, get_settings())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--max-rounds", type=int, default=60)
    parser.add_argument("--json", metavar="FILE", default=None)
    args = parser.parse_args()
    print(
        f"replay app case, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit()}, "
        f"{args.rounds} rounds x {DEFAULT_PASSES} passes to {args.max_rounds}, {', '.join(VARIANTS)}, "
        f"load average {load_average()}",
        flush=True,
    )
    statements = parse_source(";\n".join(QUERIES) + ";\n").statements
    variants = [ReplayVariant(name, provisioner(name), []) for name in VARIANTS]
    with tempfile.TemporaryDirectory() as scratch:
        dump = Path(scratch) / "shopapp.sql"
        write_dump(dump)
        dataset = DumpDataset(dump, file_sha256(dump), DATABASE)
        started = time.monotonic()
        try:
            replays = replay_rounds(
                variants,
                dataset,
                statements,
                plan("interleaved", args.rounds, DEFAULT_PASSES, 46, len(variants)),
                extension=Extension(args.max_rounds, lambda done: still_undecided(statements, done, AA)),
            )
        finally:
            for name in VARIANTS:
                provisioner(name).stop_all()
    wall = time.monotonic() - started
    reports = compare(statements, replays, aa_control=AA)
    document = report_document(
        statements, replays, reports, aa_control=AA, planned_rounds=args.rounds, max_rounds=args.max_rounds
    )
    print(f"wall {wall:.0f} s (dump loads included), load average {load_average()}")
    for line in summary_lines(document):
        print(f"  {line}")
    kinds: dict[str, dict[str, int]] = {}
    for one in document.fingerprints:
        for name, finding in one.variants.items():
            for found in finding.findings:
                if found.kind in ("breaks", "plan changed"):
                    continue
                cause = found.cause.kind if found.cause else "none"
                kinds.setdefault(name, {})[cause] = kinds.setdefault(name, {}).get(cause, 0) + 1
            if finding.group not in ("same", "undecided"):
                print(f"  [{finding.group}] {name}: {one.fingerprint[:90]}")
                if finding.cause:
                    print(f"      cause: {finding.cause.text[:300]}")
                if also := also_text(finding):
                    print(f"      {also[2:][:300]}")
                for change in finding.stages:
                    print(f"      stage: {change.text}{' (moved)' if change.moved else ''}")
    aa = next(s for s in document.summary if s.variant == AA)
    false = aa.breaks + aa.slower + aa.faster + aa.slower_cost_only + aa.faster_cost_only + aa.plan_changes
    print(f"\n  time findings by cause per variant: {kinds}")
    print(f"  A/A control: {false} findings (each false), same {aa.same} of {len(document.fingerprints)}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"wall_s": wall, "report": document.model_dump(mode="json")}, indent=1)
        )


if __name__ == "__main__":
    main()
