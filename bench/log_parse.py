"""Reading a big slow log: the lab's reader (backend/upgradelab/measurement/querylog, each event's
pt-query-digest fingerprint and class counted) beside pt-query-digest on the same file, side by
side in one run (issue 47).

The log is generated (seeded): `--events` events (default 1,000,000) of MySQL 8's slow log with
log_slow_extra (a header of about 700 bytes), each a statement of ~150 shapes with fresh literals,
some over several lines, padded to about `--mb` MiB in all (default 1024). A second log holds its
first tenth, so the lab's peak memory is read at two sizes: bounded memory is the same peak for
both (the reader holds one 1 MiB block and the event being read, never the file).

Each tool runs as its own process, the order alternating by round (`--rounds`, default 1:
pt-query-digest takes minutes on 1 GB); per run: events read, wall seconds, CPU seconds (user +
system of that process: the machine is shared, wall time also measures the neighbours), events per
CPU second, MiB per CPU second, and peak RSS (its own ru_maxrss). pt-query-digest runs as a team
runs it (`--output json`: it reads, fingerprints and aggregates each event, then reports), its
event count read from the report. The load (`uptime`) is printed before and after.

    .venv/bin/python bench/log_parse.py                       # 1 GB, 1 M events, 1 round
    .venv/bin/python bench/log_parse.py --events 100000 --mb 100 --rounds 3
"""

import argparse
import json
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON = REPO / ".venv" / "bin" / "python"
SHAPES = 150
# the lab's side, run in its own process: read, fingerprint, count classes; print what it found
LAB = """
import json, sys, time
sys.path.insert(0, {backend!r})
from pathlib import Path
from upgradelab.measurement.pt_fingerprint import class_id, pt_fingerprint
from upgradelab.measurement import open_log, read_events
classes = {{}}
events = 0
with open_log(Path(sys.argv[1])) as stream:
    for event in read_events(stream, "slow"):
        events += 1
        key = class_id(pt_fingerprint(event.pt_text()))
        classes[key] = classes.get(key, 0) + 1
print(json.dumps({{"events": events, "classes": len(classes)}}))
"""


def _statement(rng: random.Random, shape: int) -> str:
    """A statement of `shape` (0..SHAPES-1) with fresh literals: the shape picks the table, columns,
    clauses and line breaks, the literals change every time."""
    shaped = random.Random(shape)
    table = (
        f"{shaped.choice(['orders', 'customers', 'items', 'payments', 'events'])}_{shaped.choice('abcdefgh')}"
    )
    columns = ", ".join(shaped.sample(["id", "name", "status", "total", "created_at", "note", "qty"], 3))
    value = rng.randint(1, 10**6)
    kind = shape % 6
    if kind == 0:
        return f"SELECT {columns} FROM {table} WHERE id = {value}"
    if kind == 1:
        items = ", ".join(str(rng.randint(1, 10**6)) for _ in range(rng.randint(2, 30)))
        limit = rng.randint(1, 50)
        return f"SELECT {columns}\nFROM {table}\nWHERE id IN ({items})\nORDER BY created_at ASC LIMIT {limit}"
    if kind == 2:
        status = rng.choice(["new", "paid", "gone"])
        return f"UPDATE {table} SET status = '{status}', total = {value / 100} WHERE id = {value}"
    if kind == 3:
        rows = ", ".join(
            f"({rng.randint(1, 10**6)}, 'n{rng.randint(1, 999)}', NULL)" for _ in range(rng.randint(1, 8))
        )
        return f"INSERT INTO {table} (id, name, note) VALUES {rows}"
    if kind == 4:
        other = f"customers_{shaped.choice('ab')}"
        join = f"JOIN {other} c ON c.id = t.id"
        return f"SELECT COUNT(*) FROM {table} t {join} WHERE c.name = 'c{value}' /* app */"
    month = rng.randint(1, 12)
    return f"SELECT {columns} FROM {table} WHERE created_at > '2024-{month:02d}-01' AND note LIKE '%{value}%'"


def _event(rng: random.Random, number: int, pad: int) -> str:
    started = 1_709_500_000 + number // 50
    micros = number % 1_000_000
    thread = 1000 + number % 64
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(started))
    sql = _statement(rng, rng.randrange(SHAPES))
    comment = f" /* {'x' * pad} */" if pad > 0 else ""
    return (
        f"# Time: {stamp}.{micros:06d}Z\n"
        f"# User@Host: app[app] @ web{number % 7} [10.0.0.{number % 250}]  Id: {thread}\n"
        f"# Query_time: 0.{rng.randint(0, 999999):06d}  Lock_time: 0.000{rng.randint(0, 999):03d} "
        f"Rows_sent: {rng.randint(0, 500)}  Rows_examined: {rng.randint(0, 100000)} Thread_id: {thread} "
        f"Errno: 0 Killed: 0 Bytes_received: {len(sql)} Bytes_sent: {rng.randint(11, 9000)} Read_first: 0 "
        f"Read_last: 0 Read_key: {rng.randint(0, 9)} Read_next: {rng.randint(0, 99)} Read_prev: 0 "
        f"Read_rnd: 0 Read_rnd_next: {rng.randint(0, 999)} Sort_merge_passes: 0 Sort_range_count: 0 "
        f"Sort_rows: {rng.randint(0, 50)} Sort_scan_count: 0 Created_tmp_disk_tables: 0 "
        "Created_tmp_tables: 0 Count_hit_tmp_table_size: 0 "
        f"Start: {stamp}.{micros:06d}Z End: {stamp}.{micros:06d}Z\n"
        f"use shop{number % 3};\nSET timestamp={started};\n{sql}{comment};\n"
    )


def write_log(path: Path, events: int, mib: int, seed: int = 47) -> int:
    """Write `events` events of about mib MiB in all to `path`; the bytes written."""
    rng = random.Random(seed)
    sample = sum(len(_event(random.Random(i), i, 0).encode()) for i in range(200)) / 200
    pad = max(0, int(mib * (1 << 20) / events - sample) - 7)
    written = 0
    with path.open("w", encoding="utf-8", newline="\n") as out:
        out.write("/usr/sbin/mysqld, Version: 8.4.3 (MySQL Community Server - GPL). started with:\n")
        batch: list[str] = []
        for number in range(events):
            batch.append(_event(rng, number, pad + rng.randint(-20, 20)))
            if len(batch) == 10_000:
                written += out.write("".join(batch))
                batch = []
        written += out.write("".join(batch))
    return path.stat().st_size


def _run(argv: list[str]) -> tuple[str, float, float, float]:
    """Run argv: (its stdout, wall seconds, CPU seconds, peak RSS in MiB), from its own rusage."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - started
        out.seek(0)
        text = out.read().decode()
    if child.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({child.returncode})")
    return text, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def lab(path: Path) -> dict[str, float]:
    """The lab's reader on `path` in its own process."""
    text, wall, cpu, rss = _run([str(PYTHON), "-c", LAB.format(backend=str(REPO / "backend")), str(path)])
    found = json.loads(text)
    return {
        "events": found["events"],
        "classes": found["classes"],
        "wall_s": wall,
        "cpu_s": cpu,
        "rss_mib": rss,
    }


def pt(path: Path) -> dict[str, float]:
    """pt-query-digest on `path` (--output json), its event and class counts from its report."""
    text, wall, cpu, rss = _run(["pt-query-digest", "--output", "json", "--limit", "999999", str(path)])
    report = json.loads(text)
    events = report["global"]["query_count"]
    return {
        "events": events,
        "classes": report["global"]["unique_query_count"],
        "wall_s": wall,
        "cpu_s": cpu,
        "rss_mib": rss,
    }


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--mb", type=int, default=1024, help="the log's size in MiB (about)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--dir", type=Path, default=None, help="where the logs are written (default: a temp dir)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        big, small = Path(tmp) / "slow.log", Path(tmp) / "slow-tenth.log"
        started = time.monotonic()
        size = write_log(big, args.events, args.mb)
        small_size = write_log(small, args.events // 10, max(1, args.mb // 10))
        print(
            f"wrote {args.events:,} events, {size / (1 << 20):,.0f} MiB in {time.monotonic() - started:.0f} s"
        )
        print(f"load before: {_uptime()}")
        results: list[tuple[str, str, dict[str, float], int]] = []
        for round_ in range(args.rounds):
            tools = [("lab", lab), ("pt-query-digest", pt)]
            for name, run in tools if round_ % 2 == 0 else tools[::-1]:
                results.append((name, "1/1", run(big), size))
                print(f"  round {round_ + 1} {name}: {results[-1][2]}", flush=True)
        results.append(("lab", "1/10", lab(small), small_size))
        print(f"load after: {_uptime()}")
    columns = ["events", "wall s", "CPU s", "events/CPU s", "MiB/CPU s", "peak RSS MiB"]
    print(f"\n{'tool':16} {'log':>5} " + " ".join(f"{c:>13}" for c in columns))
    for name, part, one, bytes_ in results:
        rate, speed = one["events"] / one["cpu_s"], bytes_ / (1 << 20) / one["cpu_s"]
        print(
            f"{name:16} {part:>5} {one['events']:>13,.0f} {one['wall_s']:>13.1f} {one['cpu_s']:>13.1f} "
            f"{rate:>13,.0f} {speed:>13.1f} {one['rss_mib']:>13.0f}"
        )
    mine = [one for name, part, one, _ in results if name == "lab" and part == "1/1"]
    theirs = [one for name, part, one, _ in results if name == "pt-query-digest"]
    rate = (
        sum(o["events"] / o["cpu_s"] for o in mine)
        / len(mine)
        / (sum(o["events"] / o["cpu_s"] for o in theirs) / len(theirs))
    )
    print(
        f"\nlab / pt-query-digest events per CPU second: {rate:.1f}x; the same events: "
        f"{all(o['events'] == mine[0]['events'] for o in mine + theirs)}"
    )


if __name__ == "__main__":
    main()
