"""Where a run's wall clock goes: inside iterations, or in the loop around them (issue 19).

Article 001's insert-truncate on a throw-away Upgrade Lab instance (bench/instance.py: its own state
dir, Redis, Celery worker and API), through the real path: POST /api/experiments, POST .../runs, the
worker's task runs it. Full mode: 5 variants (mysql-9.7 default and redo-off, mariadb-10.11,
mariadb-11.8, and the A/A control: a second mysql-9.7 default instance), interleaved, 10 rounds of
10-iteration blocks. --quick: 2 variants (mariadb-10.11 and its A/A control), 2 rounds of 10.

A short warm-up run of the same variants (one round of one iteration) goes first, so every template
and instance directory exists: the measured run starts instances that already exist, as a team's
second run does. Everything below is read from what the run stored: the run row (started_at = the
worker claimed it, finished_at = the final state), the iteration rows (ended_at, stamped when the
iteration ends and is handed to the writer; elapsed_s, the timed statements) and the run's Redis
stream (an entry's id is the millisecond it was appended: the `running` status = every instance
started).

    (a) in iterations   sum(elapsed_s) / (finished_at - started_at)                 target >= 80 %
    (b) block switch    from the end of a block's last iteration to the start of
                        the next block's first (start = ended_at - elapsed_s): the
                        freeze of one instance, the thaw of the next, and what the
                        loop does between two iterations anyway (the "iteration
                        gap" inside a block is shown beside it)                      target <= 50 ms
    (c) final state     finished_at - the last iteration's ended_at                  target <= 2 s
    (d) ready           the `running` status entry - started_at                      target <= 3 s
    (e) first iteration the first iteration's start - started_at
The wall clock is split into: before the first iteration, iterations, gaps inside blocks, block
switches, after the last iteration (the parts add up to it).

Fresh starts and spares, side by side: the worker keeps spare instances (--spares, its
spare_instance_s; targets/provisioners/spares.py): after each run it starts every instance again,
fresh from the template, and freezes it for the next run of the same variants. The measured runs
alternate (fresh, spare, spare, fresh, ... --pairs): before each the bench waits until the spares are
up (a team's next run comes later than a few seconds); before a "fresh" one it kills them (SIGKILL),
so that run copies and starts every instance itself, as with spares off (the product's default).

Run by hand (root, the lab installed), from the repository root:
    .venv/bin/python bench/loop_overhead.py [--quick] [--json] [--rounds 10] [--block 10]
        [--spares 120] [--pairs 2]
Ports: BENCH_PORT_OFFSET (default 250, see bench/instance.py).
"""

import argparse
import itertools
import json
import os
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import instance

FULL = [
    {"target": "mysql-9.7"},
    {"target": "mysql-9.7", "preset": "redo-off"},
    {"target": "mariadb-10.11"},
    {"target": "mariadb-11.8"},
]  # + the A/A control (aa_control): 5 variants
QUICK = [{"target": "mariadb-10.11"}]  # + the A/A control: 2 variants
FINAL = {"succeeded", "failed", "cancelled"}
TARGETS = {"share": 0.80, "switch_s": 0.050, "final_s": 2.0, "ready_s": 3.0}


def run_to_end(client: Any, variants: list[dict[str, str]], rounds: int, block: int, timeout_s: float) -> int:
    """Create the experiment (interleaved, A/A control), start a run, wait for its final state; the run id."""
    body = {
        "name": f"bench: loop overhead, {len(variants) + 1} variants, {rounds} x {block}",
        "workload": "insert-truncate",
        "variants": variants,
        "iterations": rounds * block,
        "schedule": "interleaved",
        "rounds": rounds,
        "block": block,
        "aa_control": True,
        "seed": 19,
    }
    created = client.post("/api/experiments", json=body)
    created.raise_for_status()
    started = client.post(f"/api/experiments/{created.json()['id']}/runs")
    started.raise_for_status()
    run_id = int(started.json()["id"])
    deadline = time.monotonic() + timeout_s
    while client.get(f"/api/runs/{run_id}").json()["status"] not in FINAL:
        if time.monotonic() > deadline:
            raise SystemExit(f"run {run_id} did not end within {timeout_s:.0f} s")
        time.sleep(0.2)
    return run_id


def _stream_times(run_id: int) -> dict[str, float]:
    """Unix seconds of the first `status` entry of each status in the run's stream (its XADD id)."""
    from redis import Redis

    from upgradelab.settings import get_settings
    from upgradelab.streaming.keys import stream_key

    times: dict[str, float] = {}
    with Redis.from_url(get_settings().redis_url) as redis:
        for entry_id, fields in redis.xrange(stream_key(run_id)):
            event = json.loads(fields[b"data"])
            if event.get("type") == "status" and "status" in event:
                times.setdefault(event["status"], int(entry_id.split(b"-")[0]) / 1000)
    return times


def _quantiles(values: list[float]) -> dict[str, float | None]:
    """median, p95 and max of `values` (None each when empty)."""
    if not values:
        return {"median": None, "p95": None, "max": None}
    return {
        "median": statistics.median(values),
        "p95": instance.percentile(values, 0.95),
        "max": max(values),
    }


def measure(run_id: int) -> dict[str, Any]:
    """The figures (a)-(e) and the wall clock's split, from the stored rows of `run_id` (seconds)."""
    from sqlalchemy import select

    from upgradelab.db import sync_session
    from upgradelab.results.store.models import Iteration
    from upgradelab.runs.models import Run

    with sync_session() as session:
        run = session.get(Run, run_id)
        assert run is not None and run.started_at and run.finished_at
        rows = session.execute(
            select(Iteration.block, Iteration.elapsed_s, Iteration.ended_at)
            .where(Iteration.run_id == run_id)
            .order_by(Iteration.ended_at)
        ).all()
        status, created, started, finished = run.status, run.created_at, run.started_at, run.finished_at
        error = run.error

    def since_start(moment: datetime) -> float:
        return (moment - started).total_seconds()

    wall = since_start(finished)
    # (block, start, end) in seconds since the claim; start = stored end - timed statements
    spans = [(block, since_start(end) - elapsed, since_start(end)) for block, elapsed, end in rows]
    inside = sum(end - start for _, start, end in spans)
    gaps: list[float] = []
    switches: list[float] = []
    for (block, _, end), (next_block, start, _) in itertools.pairwise(spans):
        (gaps if block == next_block else switches).append(start - end)
    first = spans[0][1] if spans else None
    last = spans[-1][2] if spans else None
    running = _stream_times(run_id).get("running")
    ready = running - started.timestamp() if running is not None else None
    return {
        "run_id": run_id,
        "status": str(status),
        "error": error,
        "iterations": len(spans),
        "blocks": len({block for block, _, _ in spans}),
        "queued_s": (started - created).total_seconds(),
        "wall_s": wall,
        "in_iterations_s": inside,
        "share": inside / wall if wall > 0 else None,
        "ready_s": ready,
        "first_iteration_s": first,
        "final_s": wall - last if last is not None else None,
        "switch_s": _quantiles(switches),
        "gap_s": _quantiles(gaps),
        "split_s": {
            "before_first_iteration": first or 0.0,
            "iterations": inside,
            "gaps_inside_blocks": sum(gaps),
            "block_switches": sum(switches),
            "after_last_iteration": wall - last if last is not None else 0.0,
        },
    }


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f} ms"


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def report(result: dict[str, Any]) -> str:
    """The table: each figure of each measured run (a column each, fresh starts and spares side by
    side), its target and whether the run met it."""
    runs = result["measured"]

    def check(ok: bool) -> str:
        return "" if ok else " (!)"

    def row(name: str, target: str, cell: Any) -> str:
        return f"{name:<44}{target:<9}" + "".join(f"{cell(m):>22}" for m in runs)

    rows = [
        row("run", "", lambda m: f"#{m['run_id']} {m['mode']}"),
        row("status", "", lambda m: m["status"] + check(m["status"] == "succeeded")),
        row("spares waiting at its start", "", lambda m: str(m["spares_waiting"])),
        row("(a) wall clock in iterations", ">= 80 %", lambda m: f"{100 * (m['share'] or 0):.1f} %"
            + check(m["share"] is not None and m["share"] >= TARGETS["share"])),
        row("(b) block switch, median", "<= 50 ms", lambda m: _ms(m["switch_s"]["median"])
            + check(m["switch_s"]["median"] is not None and m["switch_s"]["median"] <= TARGETS["switch_s"])),
        row("    block switch, p95", "", lambda m: _ms(m["switch_s"]["p95"])),
        row("    gap inside a block, median", "", lambda m: _ms(m["gap_s"]["median"])),
        row("(c) last iteration -> final state", "<= 2 s", lambda m: _s(m["final_s"])
            + check(m["final_s"] is not None and m["final_s"] <= TARGETS["final_s"])),
        row("(d) claimed -> instances ready", "<= 3 s", lambda m: _s(m["ready_s"])
            + check(m["ready_s"] is not None and m["ready_s"] <= TARGETS["ready_s"])),
        row("(e) claimed -> first iteration", "", lambda m: _s(m["first_iteration_s"])),
        row("    wall clock", "", lambda m: _s(m["wall_s"])),
        row("    time inside iterations", "", lambda m: _s(m["in_iterations_s"])),
        *(row(f"    split: {part.replace('_', ' ')}", "", lambda m, part=part: _s(m["split_s"][part]))
          for part in runs[0]["split_s"]),
    ]  # fmt: skip
    return "\n".join(
        [
            f"{result['variants']} variants, {result['rounds']} rounds x block {result['block']}; worker "
            f"spare_instance_s {result['spare_instance_s']:g}; warm-up run #{result['warmup']['run_id']} "
            f"{result['warmup']['wall_s']:.2f} s; (!) = target not met",
            "",
            *rows,
        ]
    )


def _spares(server_dir: str) -> list[Any]:
    """The frozen (SIGSTOP) servers whose option file lies under `server_dir`: the worker's spare
    instances (targets/provisioners/spares.py), on the host or in a chroot."""
    import psutil

    found = []
    for process in psutil.process_iter(["name", "cmdline", "status"]):
        if process.info["name"] not in ("mysqld", "mariadbd"):
            continue
        cnf = next((a for a in process.info["cmdline"] or [] if a.startswith("--defaults-file=")), "")
        if f"{server_dir}/" in cnf and process.info["status"] == psutil.STATUS_STOPPED:
            found.append(process)
    return found


def wait_for_spares(server_dir: str, count: int, timeout_s: float = 120) -> int:
    """Wait until `count` spares are up (at most timeout_s s): how many there are."""
    deadline = time.monotonic() + timeout_s
    while len(_spares(server_dir)) < count and time.monotonic() < deadline:
        time.sleep(0.2)
    return len(_spares(server_dir))


def kill_spares(server_dir: str) -> int:
    """SIGKILL every spare under `server_dir` (the next run then starts its instances itself, as with
    spares off: its start finds its slot's spare dead, removes its datadir and copies the template);
    how many were killed."""
    killed = _spares(server_dir)
    for process in killed:
        process.kill()
    return len(killed)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="2 variants, 2 rounds (the shape test's mode)")
    parser.add_argument("--rounds", type=int, help="default 10 (--quick: 2)")
    parser.add_argument("--block", type=int, default=10, help="iterations per block")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--timeout", type=float, default=900, help="seconds each run may take")
    parser.add_argument(
        "--spares",
        type=float,
        default=120,
        help="the worker's spare_instance_s (default 120); 0: spares off, only fresh starts are measured",
    )
    parser.add_argument("--pairs", type=int, help="fresh/spare pairs of measured runs (default 2; --quick 1)")
    args = parser.parse_args()
    variants = QUICK if args.quick else FULL
    rounds = args.rounds or (2 if args.quick else 10)
    pairs = args.pairs or (1 if args.quick else 2)
    os.environ["UPGRADELAB_SPARE_INSTANCE_S"] = str(args.spares)
    server_dir = os.environ["UPGRADELAB_SERVER_DIR"]
    instances = len(variants) + 1

    import httpx

    measured: list[dict[str, Any]] = []
    with (
        instance.instance(worker=True) as api,
        httpx.Client(base_url=api, headers=instance.auth_headers(), timeout=60) as client,
    ):
        warmup = run_to_end(client, variants, 1, 1, args.timeout)  # templates and instance dirs made
        # fresh, spare, spare, fresh, ...: neither kind always goes first
        modes = [m for i in range(pairs) for m in (("fresh", "spare") if i % 2 == 0 else ("spare", "fresh"))]
        for mode in modes if args.spares > 0 else ["fresh"] * pairs:
            waiting = wait_for_spares(server_dir, instances) if args.spares > 0 else 0
            if mode == "fresh":
                waiting -= kill_spares(server_dir)
            run_id = run_to_end(client, variants, rounds, args.block, args.timeout)
            measured.append({"mode": mode, "spares_waiting": waiting, **measure(run_id)})
        warm = measure(warmup)
    result = {
        "mode": "quick" if args.quick else "full",
        "variants": instances,
        "rounds": rounds,
        "block": args.block,
        "spare_instance_s": args.spares,
        "targets": TARGETS,
        "warmup": warm,
        "measured": measured,
    }
    print(json.dumps(result, indent=1, default=str) if args.json else report(result))


if __name__ == "__main__":
    main()
