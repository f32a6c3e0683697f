"""Do the verdicts survive noise? A vs A and default vs redo-off, interleaved and sequential, under load.

On the lab's MySQL 9.7 (a throw-away instance of Upgrade Lab, bench/instance.py), K times in one
invocation, article 001's insert-truncate:
  (a) A vs A: mysql-9.7 default with its A/A control (a second instance, same configuration);
  (b) default vs redo-off (ALTER INSTANCE DISABLE INNODB REDO_LOG: faster);
each as `interleaved` (ROUNDS rounds of BLOCK iterations) and `sequential` (ROUNDS x BLOCK iterations
per variant, one variant after the other). A load generator (CPU: one busy process per core but one;
disk: `dd ... oflag=dsync` in a loop into a temp dir) is switched on when a third of the run's
iterations are done and off at two thirds: a window covering about a third of each run.

Per run it records the product's verdict (GET /api/compare: rounds, results/stats/verdicts.py) and, for the
side by side, the verdict the pre-issue-12 method gives on the same iterations (a bootstrap over the
iterations of each variant's block, results/stats/bootstrap.py: what a sequential run used to report).

Reported per case and schedule: the share of A/A runs with a false regression/improvement (goal
<= 5 % interleaved), the share of redo-off runs with the right direction (improvement; goal >= 95 %),
the share of redo-off runs called a regression, and the median wall clock (started -> finished);
interleaved/sequential wall clock ratio = the cost of interleaving.

    .venv/bin/python bench/verdict_robustness.py [--k 4] [--rounds 10] [--block 5] [--no-load]
        [--schedules interleaved] [--max-rounds 30 [--max-minutes 4]] [--dump runs.json]

--max-rounds: the interleaved runs auto-extend (experiment.max_rounds: rounds added while a verdict
is open); the load window then covers the middle third of the planned iterations.

--dump writes every run's iterations (variant 0 and the compared variant, with their rounds) so
bench/verdict_methods.py can put other interval methods side by side on the very same runs.
"""

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import instance

FINAL = {"succeeded", "failed", "cancelled"}
CASES = {
    "A vs A": [{"target": "mysql-9.7"}],
    "default vs redo-off": [{"target": "mysql-9.7"}, {"target": "mysql-9.7", "preset": "redo-off"}],
}
SCHEDULES = ("interleaved", "sequential")
WINDOW = (1 / 3, 2 / 3)  # load on from a third of the iterations to two thirds


class Load:
    """CPU burners and an fsync-heavy disk writer, as process groups this bench starts and stops."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.processes: list[subprocess.Popen[bytes]] = []

    def on(self) -> None:
        burners = max(1, (os.cpu_count() or 2) - 1)
        for _ in range(burners):
            self.processes.append(
                subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            )
        target = self.directory / "load.bin"
        writer = f"while :; do dd if=/dev/zero of={target} bs=64k count=256 oflag=dsync status=none; done"
        self.processes.append(subprocess.Popen(["sh", "-c", writer], start_new_session=True))

    def off(self) -> None:
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):  # already gone
                os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        self.processes = []


@dataclass
class Outcome:
    case: str
    schedule: str
    run_id: int
    status: str
    verdict: str | None  # the product's (rounds)
    old_verdict: str | None  # bootstrap over iterations (pre-issue-12)
    ratio: float | None
    low: float | None
    high: float | None
    wall_s: float | None
    rounds: int | None = None  # rounds the verdict rests on (more than planned after an extension)
    # (variant_index, round, elapsed_s) of variant 0 and the compared variant, for --dump
    iterations: list[tuple[int, int, float]] = field(default_factory=list)


def _seconds(started: str | None, finished: str | None) -> float | None:
    if not started or not finished:
        return None
    return (datetime.fromisoformat(finished) - datetime.fromisoformat(started)).total_seconds()


def _iterations(client: Any, run_id: int, variant_index: int) -> list[tuple[int, int, float]]:
    """(variant_index, round, elapsed_s) of variant 0 and `variant_index`, from the run's JSON export."""
    iterations = client.get(f"/api/runs/{run_id}/export", params={"format": "json"}).json()["iterations"]
    return [
        (i["variant_index"], i["round"], i["elapsed_s"])
        for i in iterations
        if i["variant_index"] in (0, variant_index)
    ]


def _old_verdict(iterations: list[tuple[int, int, float]], variant_index: int) -> str | None:
    """The pre-issue-12 verdict: median ratio with a bootstrap over each variant's iterations."""
    from upgradelab.results.stats import bootstrap

    base = [seconds for index, _, seconds in iterations if index == 0]
    other = [seconds for index, _, seconds in iterations if index == variant_index]
    return bootstrap.verdict(bootstrap.ratio_interval(base, other, "median"), 0.05)


def run_once(client: Any, case: str, schedule: str, args: argparse.Namespace, load: Load | None) -> Outcome:
    rounds, block = args.rounds, args.block
    body: dict[str, Any] = {
        "name": f"bench: {case}, {schedule}",
        "workload": "insert-truncate",
        "variants": CASES[case],
        "iterations": rounds * block,
        "schedule": schedule,
        "aa_control": case == "A vs A",
    }
    if schedule == "interleaved":
        body |= {"rounds": rounds, "block": block}
        if args.max_rounds:
            body |= {"max_rounds": args.max_rounds, "max_minutes": args.max_minutes}
    created = client.post("/api/experiments", json=body)
    created.raise_for_status()
    run_id = client.post(f"/api/experiments/{created.json()['id']}/runs").json()["id"]
    loaded = False
    try:
        while True:
            run = client.get(f"/api/runs/{run_id}").json()
            done = run["iterations_done"] / (2 * rounds * block)  # of the planned iterations
            if load and not loaded and WINDOW[0] <= done < WINDOW[1]:
                load.on()
                loaded = True
            if load and loaded and load.processes and done >= WINDOW[1]:
                load.off()
            if run["status"] in FINAL:
                break
            time.sleep(0.1)
    finally:
        if load:
            load.off()
    index = 1  # the A/A control is the last variant, redo-off the second
    comparison = client.get("/api/compare", params={"runs": str(run_id), "series": "false"}).json()
    row = next((r for r in comparison["rows"] if r["variant_index"] == index), None)
    ratio = row and row["ratio"]
    iterations = _iterations(client, run_id, index) if run["status"] == "succeeded" else []
    return Outcome(
        case,
        schedule,
        run_id,
        run["status"],
        ratio and ratio["verdict"],
        _old_verdict(iterations, index) if iterations else None,
        ratio and ratio["ratio"],
        ratio and ratio["low"],
        ratio and ratio["high"],
        _seconds(run["started_at"], run["finished_at"]),
        row and row["rounds"],
        iterations,
    )


def _share(outcomes: list[Outcome], verdicts: set[str], old: bool = False) -> str:
    if not outcomes:
        return "-"
    hits = sum((o.old_verdict if old else o.verdict) in verdicts for o in outcomes)
    return f"{hits}/{len(outcomes)} ({100 * hits / len(outcomes):.0f} %)"


def report(outcomes: list[Outcome]) -> None:
    print()
    columns = f"{'figure':<34}{'rounds verdict':>16}  {'old bootstrap':>15}"
    print(f"{'case':<22}{'schedule':<13}{'runs':>5}  {columns}")
    for case in CASES:
        for schedule in SCHEDULES:
            ok = [
                o for o in outcomes if o.case == case and o.schedule == schedule and o.status == "succeeded"
            ]
            head = f"{case:<22}{schedule:<13}{len(ok):>5}  "
            if case == "A vs A":
                false = {"regression", "improvement"}
                shares = f"{_share(ok, false):>16}  {_share(ok, false, True):>15}"
                print(f"{head}{'false regression/improvement':<34}{shares}")
                same = {"no significant difference"}
                shares = f"{_share(ok, same):>16}  {_share(ok, same, True):>15}"
                print(f"{'':<40}{'no significant difference':<34}{shares}")
            else:
                print(
                    f"{head}{'right direction (improvement)':<34}{_share(ok, {'improvement'}):>16}  "
                    f"{_share(ok, {'improvement'}, True):>15}"
                )
                print(
                    f"{'':<40}{'wrong (regression)':<34}{_share(ok, {'regression'}):>16}  "
                    f"{_share(ok, {'regression'}, True):>15}"
                )
            verdicts = sorted({str(o.verdict) for o in ok})
            print(f"{'':<40}{'verdicts seen':<34}{', '.join(verdicts)}")  # fmt: skip
    print()
    for case in CASES:
        walls = {
            s: [o.wall_s for o in outcomes if o.case == case and o.schedule == s and o.wall_s is not None]
            for s in SCHEDULES
        }
        if all(walls.values()):
            inter, seq = (statistics.median(walls[s]) for s in SCHEDULES)
            print(
                f"{case}: median wall clock interleaved {inter:.1f} s, sequential {seq:.1f} s, "
                f"interleaved / sequential = {inter / seq:.2f}x"
            )
    failed = [o for o in outcomes if o.status != "succeeded"]
    if failed:
        print(f"runs not succeeded: {', '.join(f'#{o.run_id} {o.status}' for o in failed)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--k", type=int, default=4, help="repetitions of every case x schedule")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--block", type=int, default=5, help="iterations per block (interleaved)")
    parser.add_argument("--no-load", action="store_true", help="no load generator (a quiet baseline)")
    parser.add_argument("--schedules", nargs="+", choices=SCHEDULES, default=list(SCHEDULES))
    parser.add_argument("--max-rounds", type=int, help="auto-extension budget (interleaved runs)")
    parser.add_argument("--max-minutes", type=float, help="auto-extension time budget (with --max-rounds)")
    parser.add_argument("--dump", type=Path, help="write every run (verdict, iterations) as JSON here")
    args = parser.parse_args()

    import httpx

    outcomes: list[Outcome] = []
    with (
        tempfile.TemporaryDirectory(prefix="upgradelab-load-") as scratch,
        instance.instance(worker=True) as api,
        httpx.Client(base_url=api, headers=instance.auth_headers(), timeout=60) as client,
    ):
        load = None if args.no_load else Load(Path(scratch))
        for k in range(1, args.k + 1):
            for case in CASES:
                for schedule in args.schedules:  # alternated so both meet the same machine conditions
                    outcome = run_once(client, case, schedule, args, load)
                    outcomes.append(outcome)
                    if args.dump:
                        dump(args, outcomes)
                    print(
                        f"k={k} {case:<20} {schedule:<12} run #{outcome.run_id} {outcome.status:<9} "
                        f"ratio {outcome.ratio or float('nan'):.3f} [{outcome.low or float('nan'):.3f}, "
                        f"{outcome.high or float('nan'):.3f}] verdict {outcome.verdict} "
                        f"(old: {outcome.old_verdict}) rounds {outcome.rounds} "
                        f"wall {outcome.wall_s or float('nan'):.1f} s",
                        flush=True,
                    )
    report(outcomes)


def dump(args: argparse.Namespace, outcomes: list[Outcome]) -> None:
    """--dump: the settings and every run so far (rewritten after each run: an interrupted bench
    keeps its runs)."""
    settings = {
        "rounds": args.rounds,
        "block": args.block,
        "max_rounds": args.max_rounds,
        "max_minutes": args.max_minutes,
        "load": not args.no_load,
    }
    runs = [asdict(o) for o in outcomes]
    args.dump.write_text(json.dumps({"settings": settings, "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
