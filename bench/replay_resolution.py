"""Can a replay say "same"? The resolution of replay time verdicts on a dataset the bench makes.

A dump of three tables (small 1,000 rows, mid 20,000, big 100,000 with secondary indexes) and
SHAPES statement shapes (distinct fingerprints) from a primary-key lookup (~0.1 ms) to full scans
with grouping and joins (~100 ms), replayed on three instances of one target (mariadb-10.11):
  - "a" the baseline and "b" the same server again (A/A: every fingerprint should read "same");
  - "c" with optimizer_switch derived_merge=off,condition_pushdown_for_derived=off (the planted
    slowdown: the derived-table lookup `select ... from (select * from big) d where d.id = ?` is
    materialised whole instead of merged into a primary-key lookup: another plan, a scan of big;
    no other shape uses a derived table);
at the replay's default rounds and passes (replay/schemas.py DEFAULT_ROUNDS, DEFAULT_PASSES).
Reported per mode: the share of A/A
fingerprints "same", false slower / faster (A/A, and c's fingerprints other than the planted one),
whether the planted one is "slower, plan changed", the median smallest detectable change of b, and
the replay's wall clock (the dump loads excluded: each mode replays on the kept datadirs).

Modes: "after" (this version: ANALYZE TABLE, a warm-up pass, each statement repeated to 20 ms per
pass and the median kept, Benjamini-Hochberg; MariaDB's default performance_schema=OFF, so the
client's clock); "after-ps": the same with performance_schema=ON on every instance (the server's
clock, TIMER_WAIT); "before": one timed execution per pass (timing.py MIN_MEASURED_S 0,
MAX_REPEATS 1), the rest as "after". Each mode runs in both layouts of a round (engine.py
`interleave`), one after the other: "block" (a variant's passes over every statement, then the next
variant) and "statement" (each statement's passes on every variant in turn: the replay's default).
Extension (replay/extension.py; `--extension off on` runs both side by side, in that order, for each
mode and layout): "off" = the planned rounds only (as before the extension); "on" = the fingerprints
still undecided after them get more rounds, 5 at a time, up to --max-rounds (default 3 x --rounds,
as a replay's). Reported with it: the rounds the fingerprints got (median, max) and how many were
extended.

Run by hand (root, the lab installed), from the repository root:
    .venv/bin/python bench/replay_resolution.py [--modes before after] [--rounds 10] [--passes 5]
        [--layouts pass] [--extension off on] [--max-rounds 60]
Servers use their own directory (/var/lib/upgradelab/bench-servers-replay) and ports (36011-36013).
"""

import argparse
import importlib.util
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("UPGRADELAB_SERVER_DIR", "/var/lib/upgradelab/bench-servers-replay")
sys.path.insert(0, str(REPO / "backend"))

from upgradelab.execution.schedule import plan  # noqa: E402
from upgradelab.measurement import (  # noqa: E402  # noqa: E402
    DumpDataset,
    Extension,
    Interleave,
    ReplayVariant,
    file_sha256,
    parse_source,
    replay_rounds,
    timing,
)
from upgradelab.replay.compare import compare  # noqa: E402
from upgradelab.replay.document import report_document  # noqa: E402
from upgradelab.replay.extension import still_undecided  # noqa: E402
from upgradelab.replay.schemas import DEFAULT_PASSES, DEFAULT_ROUNDS, EXTENSION_FACTOR  # noqa: E402
from upgradelab.settings import get_settings  # noqa: E402
from upgradelab.targets.provisioners import LocalProvisioner  # noqa: E402

TARGET = "mariadb-10.11"
PORTS = {"a": 36011, "b": 36012, "c": 36013}
# a time verdict: any of them on the A/A control or an unchanged statement is a false one
DECIDED = ("slower", "slower, plan changed", "faster", "faster, plan changed")
PLANTED = "SELECT d.id, d.k FROM (SELECT * FROM big) d WHERE d.id = ?"
SIZES = {"small": 1_000, "mid": 20_000, "big": 100_000}


def lab_target(name: str) -> dict[str, Any]:
    """The seeded lab target's row (migration 0002), the single source of its settings."""
    path = REPO / "backend/upgradelab/migrations/versions/0002_seed_lab_targets.py"
    spec = importlib.util.spec_from_file_location("seed_lab_targets", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: dict[str, Any] = next(t for t in module.LAB_TARGETS if t["name"] == name)
    return found


def write_dump(path: Path) -> None:
    """The bench's dump: small, mid, big with id, k (indexed), g (10 groups), v, pad."""
    rng = random.Random(1)
    with path.open("w") as out:
        for table, rows in SIZES.items():
            out.write(
                f"CREATE TABLE {table} (id INT PRIMARY KEY, k INT NOT NULL, g INT NOT NULL, "
                "v DOUBLE NOT NULL, pad VARCHAR(40) NOT NULL, KEY k_k (k), KEY k_g (g)) ENGINE=InnoDB;\n"
            )
            for start in range(1, rows + 1, 1000):
                values = ",".join(
                    f"({i},{rng.randrange(rows)},{i % 10},{rng.random():.6f},'{'x' * rng.randrange(10, 40)}')"
                    for i in range(start, min(rows, start + 999) + 1)
                )
                out.write(f"INSERT INTO {table} VALUES {values};\n")


def queries() -> str:
    """SHAPES statements, one per fingerprint (aliases s1.. keep shapes with the same form apart)."""
    shapes = [PLANTED.replace("?", "500")]
    n = 0

    def add(sql: str) -> None:
        nonlocal n
        n += 1
        shapes.append(sql.replace("$", f"s{n}"))

    for table, rows in SIZES.items():
        add(f"SELECT v AS $ FROM {table} WHERE id = {rows // 2}")
        add(f"SELECT COUNT(*) AS $ FROM {table} WHERE k BETWEEN 10 AND 60")
        add(f"SELECT id AS $ FROM {table} WHERE k > {rows // 3} ORDER BY k LIMIT 20")
        add(f"SELECT g AS $, COUNT(*), SUM(v) FROM {table} GROUP BY g ORDER BY g")
        add(f"SELECT MAX(pad) AS $ FROM {table}")
        add(f"SELECT COUNT(DISTINCT k) AS $ FROM {table}")
        add(f"SELECT AVG(v) AS $ FROM {table} WHERE g = 3")
        add(f"SELECT id AS $, v FROM {table} ORDER BY v DESC LIMIT 5")
        add(f"SELECT COUNT(*) AS $ FROM {table} WHERE pad LIKE 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx%'")
    add("SELECT COUNT(*) AS $ FROM small s JOIN mid m ON m.k = s.id")
    add("SELECT COUNT(*) AS $ FROM mid m JOIN big b ON b.id = m.k WHERE m.g = 1")
    add("SELECT s.g AS $, SUM(b.v) FROM small s JOIN big b ON b.k = s.id GROUP BY s.g ORDER BY s.g")
    add("SELECT COUNT(*) AS $ FROM big WHERE k IN (SELECT id FROM small)")
    add("SELECT 1 + 1 AS $")
    return ";\n".join(shapes) + ";\n"


def variants(server_clock: bool = False) -> list[ReplayVariant]:
    target = lab_target(TARGET)
    out = []
    for name, port in PORTS.items():
        settings = {**target["settings"], "port": port}
        provisioner = LocalProvisioner(f"{TARGET}-replay-{name}", target["flavor"], settings, get_settings())
        # every lab instance of a replay starts with performance_schema ON (measurement/timing.py
        # CLOCK_OPTIONS); the client's clock modes turn it off again, as they measured before
        options = ["performance_schema=ON"] if server_clock else ["performance_schema=OFF"]
        if name == "c":  # merged: a primary-key lookup; materialised whole (no pushdown): a scan of big
            options.append("optimizer_switch=derived_merge=off,condition_pushdown_for_derived=off")
        out.append(ReplayVariant(name, provisioner, options))
    return out


def bench(
    mode: str, layout: Interleave, dataset: DumpDataset, rounds: int, passes: int, max_rounds: int | None
) -> dict[str, Any]:
    """One replay in `mode` with rounds laid out as `layout`, extended up to `max_rounds` (None: not
    extended); its figures."""
    server_clock = mode == "after-ps"
    if mode == "before":
        timing.MIN_MEASURED_S, timing.MAX_REPEATS = 0.0, 1
    else:
        timing.MIN_MEASURED_S, timing.MAX_REPEATS = 0.020, 200
    statements = parse_source(queries()).statements
    started = time.monotonic()
    schedule = plan("interleaved", rounds, passes, 7, 3)
    load = os.getloadavg()[0]
    extension = (
        Extension(max_rounds, lambda done: still_undecided(statements, done))
        if max_rounds is not None
        else None
    )
    replays = replay_rounds(
        variants(server_clock), dataset, statements, schedule, interleave=layout, extension=extension
    )
    wall = time.monotonic() - started
    reports = compare(statements, replays)
    document = report_document(statements, replays, reports, planned_rounds=rounds, max_rounds=max_rounds)
    spent = [r.rounds or 0 for r in reports]
    aa = [r.variants["b"].group for r in reports]
    planted = reports[0]  # the first statement of queries(), reports in source order
    others = [r.variants["c"].group for r in reports[1:]]
    mdes = [r.ratios["b"].mde for r in reports if "b" in r.ratios]
    medians = [m for r in reports if (m := r.median_s.get("a")) is not None]
    return {
        "mode": mode,
        "layout": layout,
        "extension": f"to {max_rounds}" if max_rounds is not None else "off",
        "rounds_median": statistics.median(spent),
        "rounds_max": max(spent),
        "extended": sum(1 for one in spent if one > rounds),
        "load": (load, os.getloadavg()[0]),
        "shapes": len(reports),
        "fastest_ms": min(medians) * 1000,
        "slowest_ms": max(medians) * 1000,
        "aa_same": aa.count("same") / len(aa),
        "aa_false": sum(g in DECIDED for g in aa),
        "c_false": sum(g in DECIDED for g in others),
        "planted": planted.variants["c"].group,
        "mde_median": statistics.median(mdes) if mdes else None,
        "clock": document.clock,
        "wall_s": wall,
        "loaded": [r.load is not None for r in replays],
        "aa": [
            (r.fingerprint, r.median_s.get("a"), b.low, b.ratio, b.high, g, r.rounds)
            for r, g in zip(reports, aa, strict=True)
            if (b := r.ratios.get("b")) is not None
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    modes = ["before", "after", "after-ps"]
    parser.add_argument("--modes", nargs="+", default=modes, choices=modes)
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    parser.add_argument("--passes", type=int, default=DEFAULT_PASSES)
    layouts: list[Interleave] = ["block", "statement", "pass"]
    parser.add_argument("--layouts", nargs="+", default=layouts, choices=layouts)
    parser.add_argument("--details", action="store_true", help="each A/A fingerprint's ratio and interval")
    parser.add_argument("--extension", nargs="+", default=["on"], choices=["off", "on"])
    parser.add_argument("--max-rounds", type=int, default=None, help="default: 3 x --rounds (a replay's)")
    args = parser.parse_args()
    max_rounds = args.max_rounds or EXTENSION_FACTOR * args.rounds
    with tempfile.TemporaryDirectory() as scratch:
        dump = Path(scratch) / "bench.sql"
        write_dump(dump)
        dataset = DumpDataset(dump, file_sha256(dump), "bench")
        # A first replay of one round loads the dump on every instance: the modes reuse the datadirs.
        replay_rounds(
            variants(), dataset, parse_source("SELECT 1;").statements, plan("interleaved", 1, 1, 1, 3)
        )
        results = [
            bench(mode, layout, dataset, args.rounds, args.passes, max_rounds if extension == "on" else None)
            for mode in args.modes
            for layout in args.layouts
            for extension in args.extension
        ]
    print(f"{args.rounds} rounds x {args.passes} passes, 3 instances of {TARGET}")
    print(
        "mode     layout     extension  shapes  range (ms)      A/A same  A/A false  c false  planted", end=""
    )
    print("                 mde(b)  clock   wall    rounds (median/max, extended)  load average")
    for r in results:
        mde = f"{r['mde_median']:.1%}" if r["mde_median"] is not None else "-"
        print(
            f"{r['mode']:<8} {r['layout']:<10} {r['extension']:<10} {r['shapes']:>6}  "
            f"{r['fastest_ms']:.2f}-{r['slowest_ms']:.1f}  "
            f"{r['aa_same']:>8.0%}  {r['aa_false']:>9}  {r['c_false']:>7}  {r['planted']:<22}  {mde:>6}  "
            f"{r['clock']:<6}  {r['wall_s']:.0f} s   {r['rounds_median']:.0f}/{r['rounds_max']}, "
            f"{r['extended']:<20}  {r['load'][0]:.1f} -> {r['load'][1]:.1f}"
        )
    for r in results if args.details else []:
        print(f"\n{r['mode']} {r['layout']} extension {r['extension']}: b against a, per fingerprint")
        for fingerprint, median_s, low, ratio, high, group, spent in r["aa"]:
            interval = "-" if None in (low, ratio, high) else f"{ratio:.3f} [{low:.3f}, {high:.3f}]"
            median = "-" if median_s is None else f"{median_s * 1000:8.2f} ms"
            print(f"  {median}  {interval:<24} {group:<12} {spent:>3} rounds  {fingerprint[:60]}")


if __name__ == "__main__":
    main()
