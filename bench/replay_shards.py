"""A replay's throughput with 1 and 2 workers of one pool (issue 51, item 4): the same replay queued
through the API of a throw-away instance (instance.py: its Redis, API and first worker) with a
second worker of pool "local" beside it (its own state and server directories, as a second host),
once unsharded (`shards` 1: one worker replays every fingerprint) and once over both (`shards` 2),
alternating in one invocation (1, 2, 1, 2, ...: a drift of the host's load lands on both).

The replay: replay_resolution.py's dataset and 33 statement shapes (imported, not copied), on
mariadb-10.11 and mariadb-11.8 (with --aa-control the baseline's A/A control too: its slower and
faster fingerprints are false findings), --rounds rounds of 1 pass, no extension. Per replay it
prints the wall clock from queue to final status, the fingerprints per minute and each variant's
slower/faster (per-statement cost only included), same and undecided counts; per arm the median;
then the 2-worker / 1-worker throughput ratio. Each replay's per-statement cost lines (one per
variant and host when sharded) and where its shards ran are printed under it. Two workers on this
one machine share its CPUs: on a 2-core host the second adds servers and a client, not CPU (each
shard pins its timing to one CPU, execution/timing_cpu.py), so the ratio here is what the split
costs or saves on one host; on two hosts each shard has its own.

Run by hand (root, the lab installed), from the repository root:
    .venv/bin/python bench/replay_shards.py [--rounds 5] [--trials 2]
Servers: /var/lib/upgradelab/bench-servers-<offset> and -shard (BENCH_PORT_OFFSET, default 250).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import httpx
import instance
import replay_resolution as base
from power_checks import commit, load_average
from sqlalchemy import select

from upgradelab.db import sync_session
from upgradelab.pools.credential import worker_token
from upgradelab.replay.models import ReplayShard
from upgradelab.settings import get_settings

VARIANTS = ["mariadb-10.11", "mariadb-11.8"]
FINAL = ("succeeded", "failed", "cancelled")
SECOND_SERVERS = f"{os.environ['UPGRADELAB_SERVER_DIR']}-shard"


def second_worker(state: Path) -> subprocess.Popen[bytes]:
    """A worker of pool "local" with its own state and server directories, ready when returned."""
    settings = get_settings()
    env = {
        **os.environ,
        "UPGRADELAB_STATE_DIR": str(state),
        "UPGRADELAB_SERVER_DIR": SECOND_SERVERS,
        "UPGRADELAB_DATABASE_URL": settings.async_database_url,
        "UPGRADELAB_API_URL": instance.API,
        "UPGRADELAB_WORKER_TOKEN": worker_token(),
    }
    log = state / "worker.log"
    process = subprocess.Popen(  # INFO: its " ready." line
        [str(instance.BIN / "celery"), "-A", "upgradelab.worker", "worker", "--concurrency=1",
         "-l", "INFO", "-n", "second@%h"],
        env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 300
    while " ready." not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit(f"the second worker did not start: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.3)
    return process


def live_workers(client: httpx.Client) -> int:
    listed = {p["name"]: p for p in client.get("/api/pools").json()}
    return len(listed.get("local", {}).get("workers", []))


def one_replay(
    client: httpx.Client, queries: str, shards: int, rounds: int, aa: bool = False
) -> dict[str, Any]:
    """Queue one replay, wait for its end; its wall clock (s), fingerprints, status and per variant
    its slower / faster / same / undecided counts (the A/A control's slower and faster are false)."""
    body = {"dataset": "shards", "queries": queries, "variants": VARIANTS, "rounds": rounds,
            "max_rounds": rounds, "passes": 1, "shards": shards, "aa_control": aa}  # fmt: skip
    started = time.monotonic()
    created = client.post("/api/replays", json=body)
    assert created.status_code == 201, created.text
    replay_id = created.json()["id"]
    while (replay := client.get(f"/api/replays/{replay_id}").json())["status"] not in FINAL:
        time.sleep(0.5)
    wall = time.monotonic() - started
    report = replay["report"] or {}
    groups = {
        line["variant"]: "/".join(str(line[k] + line.get(f"{k}_cost_only", 0)) for k in ("slower", "faster"))
        + f" same {line['same']} undecided {line['undecided']}"
        for line in report.get("summary", [])
    }
    with sync_session() as session:  # which workers ran it: the shards' rows (none: not sharded)
        rows = session.scalars(select(ReplayShard).where(ReplayShard.replay_id == replay_id)).all()
        hosts = ", ".join(f"{r.worker}: {len(r.statements)} statements" for r in rows) or "one worker"
    return {"shards": shards, "wall_s": wall, "fingerprints": len(report.get("fingerprints", [])),
            "status": replay["status"], "error": replay["error"], "groups": groups,
            "hosts": hosts, "costs": [line["text"] for line in report.get("per_statement_cost", [])],
            "sharding": report.get("sharding")}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--trials", type=int, default=2, help="replays per arm, alternating")
    parser.add_argument("--aa-control", action="store_true", help="add the baseline's A/A control")
    args = parser.parse_args()
    print(f"commit {commit()}; load before {load_average()}; {os.cpu_count()} CPUs")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    queries = base.queries()
    with instance.instance(worker=True) as api, tempfile.TemporaryDirectory(prefix="shard-host-") as state:
        worker = second_worker(Path(state))
        try:
            with httpx.Client(base_url=api, headers=instance.auth_headers(), timeout=120) as client:
                deadline = time.monotonic() + 300
                while live_workers(client) < 2:
                    assert time.monotonic() < deadline, "the second worker never heartbeat"
                    time.sleep(0.5)
                dump = Path(state) / "shards.sql"
                base.write_dump(dump)
                assert client.put("/api/datasets/shards", content=dump.read_bytes()).status_code == 201
                # a first replay per arm, not counted: each host makes its templates and loads the dump
                for shards in (1, 2):
                    warm = one_replay(client, queries, shards, 1)
                    said = f"{warm['status']} {warm['error'] or ''}"
                    print(f"warm-up shards={shards}: {warm['wall_s']:.1f} s {said}")
                results: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
                for trial in range(args.trials):
                    for shards in (1, 2):
                        one = one_replay(client, queries, shards, args.rounds, args.aa_control)
                        results[shards].append(one)
                        per_minute = 60 * one["fingerprints"] / one["wall_s"]
                        print(
                            f"trial {trial + 1} shards={shards}: {one['wall_s']:.1f} s, "
                            f"{one['fingerprints']} fingerprints, {per_minute:.1f}/min, "
                            f"{one['status']} {one['error'] or ''} "
                            f"(load {load_average()})"
                        )
                        print(f"    ran on {one['hosts']}")
                        for variant, counted in one["groups"].items():
                            print(f"    {variant}: slower/faster {counted}")
                        for line in [*one["costs"], *([one["sharding"]] if one["sharding"] else [])]:
                            print(f"    {line}")  # each host's per-statement cost, where shards ran
        finally:
            worker.terminate()
            worker.wait(timeout=60)
            instance.kill_servers(f"{SECOND_SERVERS}/")
    medians = {n: statistics.median(r["wall_s"] for r in runs) for n, runs in results.items()}
    count = results[1][0]["fingerprints"]
    variants = len(VARIANTS) + args.aa_control
    for n, wall in medians.items():
        print(f"{n} worker(s): median {wall:.1f} s for {count} fingerprints x {variants} variants "
              f"x {args.rounds} rounds: {60 * count / wall:.1f} fingerprints/min")  # fmt: skip
    print(f"throughput 2 workers / 1 worker: {medians[1] / medians[2]:.2f}x")
    print(f"load after {load_average()}")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
