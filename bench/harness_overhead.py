"""How much of Upgrade Lab's timing is the harness, and how it compares with the article's method.

For each lab target, on one server started once (probes' options + the INSERT/TRUNCATE workload's):
  1. harness: the insert-truncate template through Upgrade Lab's own loop (one connection, each
     statement timed with perf_counter) with the probes around every iteration;
  2. article 001's method: a shell-style loop of `mysql < insert.sql` then `mysql < truncate.sql`
     (a new client process and connection per file), 100 times, timed by wall clock.
Server-side time for both is the delta of performance_schema.events_statements_summary_global_by_
event_name (statement/sql/insert + statement/sql/truncate, SUM_TIMER_WAIT / 1e12 s), so both
methods are measured by the same server clock in the same run. Printed as a table with ratios.

Run by hand (root, the lab installed), from the repository root:
    .venv/bin/python bench/harness_overhead.py [--iterations 100] [--target mysql-9.7 ...]
Servers use their own directory (/var/lib/upgradelab/bench-servers) and ports (35097, 35011).
"""

import argparse
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("UPGRADELAB_SERVER_DIR", "/var/lib/upgradelab/bench-servers")
sys.path.insert(0, str(REPO / "backend"))

from upgradelab.probes import ProbeSet, startup_options  # noqa: E402
from upgradelab.settings import get_settings  # noqa: E402
from upgradelab.targets.options import render_option  # noqa: E402
from upgradelab.targets.provisioners import LocalProvisioner  # noqa: E402
from upgradelab.targets.provisioners.base import ServerConnection  # noqa: E402
from upgradelab.workloads import ServerSession, TargetFacts  # noqa: E402
from upgradelab.workloads.insert_truncate import DATABASE, TABLES, InsertTruncate  # noqa: E402

BENCH_PORTS = {"mysql-9.7": 35097, "mariadb-10.11": 35011}
# The client each target's lab installation provides (inside the target's root).
CLIENTS = {"mysql": "/usr/bin/mysql", "mariadb": "/usr/bin/mariadb"}

# Article 001's test_sql/insert.sql and truncate.sql
INSERT_SQL = "".join(
    f"INSERT INTO {t} (name, email, test_type, created_at, updated_at) "
    f"VALUES ('{t}', '{t}@example.com', {n}, NOW(), NOW());\n"
    for n, t in enumerate(TABLES, start=1)
)
TRUNCATE_SQL = "".join(f"TRUNCATE TABLE {t};\n" for t in TABLES)


def lab_targets() -> list[dict[str, Any]]:
    """The seeded lab targets (migration 0002), the single source of their settings."""
    path = REPO / "backend/upgradelab/migrations/versions/0002_seed_lab_targets.py"
    spec = importlib.util.spec_from_file_location("seed_lab_targets", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    targets: list[dict[str, Any]] = module.LAB_TARGETS
    return targets


def server_statement_s(probe: ServerConnection) -> tuple[int, float]:
    """(statements, seconds) of INSERT + TRUNCATE so far, server-wide, from performance_schema."""
    with probe.cursor() as cursor:
        cursor.execute(
            "SELECT SUM(COUNT_STAR), SUM(SUM_TIMER_WAIT) "
            "FROM performance_schema.events_statements_summary_global_by_event_name "
            "WHERE EVENT_NAME IN ('statement/sql/insert', 'statement/sql/truncate')"
        )
        count, timer = cursor.fetchone() or (0, 0)
    return int(count or 0), int(timer or 0) / 1e12


def harness_loop(provisioner: LocalProvisioner, facts: TargetFacts, iterations: int) -> dict[str, float]:
    """Upgrade Lab's own loop with probes; client seconds = sum of statement timings."""
    endpoint = provisioner.endpoint
    connection = endpoint.connect()
    server = ServerSession(connection, endpoint, facts)
    workload = InsertTruncate()
    workload.setup(server)
    probes = ProbeSet.open(endpoint, connection)
    client_s = thread_server_s = 0.0
    count0, server0 = server_statement_s(probes.connection)
    wall0 = time.perf_counter()
    for number in range(1, iterations + 1):
        with probes.around(number) as measured:
            timings = workload.iteration(server, number)
        client_s += sum(t.elapsed_s for t in timings)
        thread_server_s += sum(
            m.value or 0
            for m in measured.measurements
            if (m.probe, m.metric) == ("statement_time", "server_s")
        )
    wall_s = time.perf_counter() - wall0
    count1, server1 = server_statement_s(probes.connection)
    read_ms = {}
    for probe in probes.probes:  # what one reading costs (twice per iteration, outside the timing)
        started = time.perf_counter()
        for _ in range(20):
            probe.read(probes.connection)
        read_ms[probe.name] = (time.perf_counter() - started) / 20 * 1000
    probes.close()
    connection.close()
    return {
        "client_s": client_s,
        "wall_s": wall_s,
        "server_s": server1 - server0,
        "thread_server_s": thread_server_s,
        "statements": count1 - count0,
        **{f"read_ms:{name}": ms for name, ms in read_ms.items()},
    }


def cli_loop(provisioner: LocalProvisioner, flavor: str, iterations: int) -> dict[str, float]:
    """Article 001's loop: a client process per SQL file, two per iteration; wall-clock seconds."""
    cfg = provisioner.cfg
    client = [
        *provisioner._command(CLIENTS[flavor]),  # the server's root (chroot)
        f"--host={cfg.host}",
        f"--port={cfg.port}",
        f"--user={cfg.user}",
        DATABASE,
    ]
    env = provisioner.endpoint.client_env()  # the admin's password in MYSQL_PWD, off the command line
    probe = provisioner.endpoint.connect()
    count0, server0 = server_statement_s(probe)
    wall0 = time.perf_counter()
    for _ in range(iterations):
        for sql in (INSERT_SQL, TRUNCATE_SQL):
            subprocess.run(client, input=sql, text=True, check=True, capture_output=True, env=env)
    wall_s = time.perf_counter() - wall0
    count1, server1 = server_statement_s(probe)
    probe.close()
    return {
        "client_s": wall_s,
        "wall_s": wall_s,
        "server_s": server1 - server0,
        "statements": count1 - count0,
    }


def bench_target(target: dict[str, Any], iterations: int) -> list[tuple[str, str, dict[str, float]]]:
    """Start the target once, run both methods on it, stop it."""
    settings = {
        **target["settings"],
        "port": BENCH_PORTS.get(target["name"], target["settings"]["port"] + 2000),
    }
    provisioner = LocalProvisioner(f"{target['name']}-bench", target["flavor"], settings, get_settings())
    facts = TargetFacts(target["name"], target["flavor"], provisioner.server_version())
    options = {
        **startup_options(target["flavor"]),
        **InsertTruncate().server_options(facts),
    }
    provisioner.start([render_option(name, value) for name, value in options.items()])
    try:
        harness = harness_loop(provisioner, facts, iterations)
        cli = cli_loop(provisioner, target["flavor"], iterations)
    finally:
        provisioner.stop()
    return [
        (target["name"], "harness (Upgrade Lab)", harness),
        (target["name"], "mysql CLI loop (article)", cli),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--target", action="append", help="lab target name (default: all)")
    args = parser.parse_args()
    targets = [t for t in lab_targets() if not args.target or t["name"] in args.target]
    rows = [row for target in targets for row in bench_target(target, args.iterations)]
    columns = ("stmts", "client s", "server s", "client/server")
    header = f"{'target':<15} {'method':<26} " + " ".join(f"{c:>{len(c) + 3}}" for c in columns)
    print(header)
    print("-" * len(header))
    harness_client: dict[str, float] = {}
    for name, method, r in rows:
        ratio = r["client_s"] / r["server_s"] if r["server_s"] else float("nan")
        numbers = f"{r['statements']:>8.0f} {r['client_s']:>11.3f} {r['server_s']:>11.3f} {ratio:>16.2f}"
        print(f"{name:<15} {method:<26} {numbers}")
        if method.startswith("harness"):
            harness_client[name] = r["client_s"]
            thread_s = r["thread_server_s"]
            thread_ratio = r["client_s"] / thread_s if thread_s else float("nan")
            print(f"{'':<42} {'':>20} {thread_s:>11.3f} {thread_ratio:>16.2f}  (workload thread, probe)")
            print(f"{'':<42} {r['wall_s']:>20.3f}  (harness wall clock, probes read)")
            reads = ", ".join(
                f"{k.split(':')[1]} {v:.2f} ms" for k, v in r.items() if k.startswith("read_ms:")
            )
            print(f"{'':<15}   one probe reading: {reads}")
    print()
    for name, method, r in rows:
        if method.startswith("mysql CLI") and harness_client.get(name):
            times = r["client_s"] / harness_client[name]
            print(f"{name}: article's CLI loop / harness client time = {times:.2f}x")


if __name__ == "__main__":
    main()
