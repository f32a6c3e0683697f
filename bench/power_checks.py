"""Power checks (issue 31): a small effect decided on the lab's real servers, run by hand, never in the gate.

The gate (scripts/test.sh) tests mechanics on the real servers, and an effect only where it is far
above the noise (at least 3x the A/A floor measured in the same test); the decisions themselves are
tested against a simulated oracle with seeded noise (backend/tests/oracle/). What is left is whether
a small real effect is decided on this host: each check here runs it, prints its figures and PASS or
FAIL against the goal it states, and exits 1 when a goal was not met. Their latest results are in
bench/README.md ("power_checks.py").

    constructed-gap      mysql-9.7 default against innodb_file_per_table=OFF + skip-log-bin + five
                         settings that do not matter to article 001's loop (origin run 6 rounds,
                         no A/A control; step runs 10 rounds); goal: the attribution names exactly
                         the two (issue 21) within 14 step runs, in every one of K
    unexplained-gap      bench/unexplained_gap.py: mysql-9.7 against a copy of itself whose servers get a
                         tenth of a CPU (a cgroup quota) and three settings that do not matter;
                         goal: every attribution ends "unexplained" (>= 70 %), naming no setting,
                         within 3 step runs (issue 21 (c))
    redo-off             default, redo-off and the A/A control, interleaved, K runs; goal: redo-off
                         "improvement" in >= 95 %, never "regression"; the A/A control decided
                         (regression/improvement) in <= 5 % (issue 12)
    skip-log-bin         default, skip-log-bin (~0.88x) and the A/A control, K runs extended while
                         open; goal: "improvement" in >= 80 % (the power an attribution step assumes),
                         never "regression"; the A/A control as above
    parallel-read        parallel-read threads=2 / threads=1 on mysql-9.7, warm, with the A/A
                         control; goal: the contrast "improvement" with its interval below 1, the A/A
                         control's change of it not decided
    replay-resolution    bench/replay_resolution.py, mode "after", layout "pass", extension on;
                         goal: A/A "same" >= 90 %, no false slower/faster (A/A and the 32 unchanged
                         shapes), the planted slowdown "slower, plan changed" (issue 20)
    replay-causes        bench/replay_causes.py's planted replay (A/A, general + slow log, index dropped);
                         goal: the per-statement cost one finding, the index drop "plan changed" (with
                         causes: naming rows examined), A/A "same" >= 90 % (issue 33)
    verdicts-under-load  bench/verdict_robustness.py's cases (A vs A, default vs redo-off) with its
                         load window on the middle third, the product's extension; goal: A/A false
                         verdict <= 5 %, redo-off right >= 95 %, never wrong (issue 12)

Every insert-truncate run is 10 planned rounds of 10 iterations, extended 5 rounds a look to
--max-rounds (30) within --max-minutes (4), as `make up`'s main job. Per run it prints the ratio
with its interval, the verdict, the rounds, and "effect/floor": |ln ratio| over the half-width of the
A/A control's interval in ln (the run's own noise floor; >= 3 is what the gate may assert).

Run by hand (root, the lab installed), one check at a time, from the repository root:
    .venv/bin/python bench/power_checks.py redo-off [--k 4] [--minutes 15]
    .venv/bin/python bench/power_checks.py constructed-gap [--k 1]
--minutes: no repetition starts after that many minutes (the goals are judged on those done); Ctrl-C
cancels the job in flight and stops the instance cleanly.
Ports: BENCH_PORT_OFFSET (default 250, bench/instance.py); replay-resolution uses
bench/replay_resolution.py's own (36011-36013), replay-causes bench/replay_causes.py's (36021-36024).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend"))

FINAL = {"succeeded", "failed", "cancelled"}
DECIDED = {"regression", "improvement"}
ROUNDS, BLOCK = 10, 10
# the constructed case (issue 21): the settings that matter to article 001's INSERT/TRUNCATE loop
# (TRUNCATE much cheaper without file-per-table; no binary log), and five that do not
MATTER: dict[str, str | None] = {"innodb-file-per-table": "OFF", "skip-log-bin": None}
IRRELEVANT = {
    "max-connections": "300",
    "table-open-cache": "2000",
    "sort-buffer-size": "1048576",
    "join-buffer-size": "1048576",
    "thread-cache-size": "20",
}
ATTRIBUTION_BUDGET = 14
PLANTED = "slower, plan changed"  # replay_resolution.py's planted slowdown: another plan, slower


@dataclass
class Goal:
    """One stated goal: `figure` measured against `target`, met or not."""

    name: str
    figure: str
    target: str
    met: bool


def commit() -> str:
    """The checked-out commit (short), with "+" when the work tree differs from it."""
    repo = Path(__file__).resolve().parents[1]
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    dirty = subprocess.run(["git", "-C", str(repo), "diff", "--quiet", "HEAD"], check=False).returncode
    return head.stdout.strip() + ("+" if dirty else "")


def load_average() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def report(check: str, goals: list[Goal]) -> bool:
    """Print the goals with PASS/FAIL, then the check's; True when every goal was met."""
    print()
    for goal in goals:
        print(f"  {'PASS' if goal.met else 'FAIL'}  {goal.name}: {goal.figure} (goal {goal.target})")
    passed = all(goal.met for goal in goals)
    print(f"{check}: {'PASS' if passed else 'FAIL'} (load average now {load_average()})")
    return passed


def effect_over_floor(ratio: dict[str, Any] | None, floor: dict[str, Any] | None) -> float | None:
    """|ln ratio| / (half-width of the A/A floor's interval in ln): how far above the run's own noise
    the effect lies; None without both."""
    if not ratio or not floor or None in (ratio.get("ratio"), floor.get("low"), floor.get("high")):
        return None
    half = (math.log(floor["high"]) - math.log(floor["low"])) / 2
    return abs(math.log(ratio["ratio"])) / half if half > 0 else math.inf


def interval(row: dict[str, Any] | None) -> str:
    """ "0.612 [0.55, 0.68] improvement, 10 rounds" of a verdict (VerdictRead JSON or a contrast row)."""
    if not row or row.get("ratio") is None:
        return f"no ratio ({row and row.get('verdict')})"
    return (
        f"{row['ratio']:.3f} [{row['low']:.3f}, {row['high']:.3f}] {row['verdict']}, {row['rounds']} rounds"
    )


def share(hits: int, runs: int) -> str:
    return f"{hits}/{runs} ({100 * hits / runs:.0f} %)" if runs else "0/0"


def wait(client: Any, path: str, timeout_s: float = 3600) -> dict[str, Any]:
    """Poll `path` until its status is final; its JSON. Ctrl-C cancels the job (POST path/cancel) and
    waits for it to end before raising: the worker is then stopped with nothing of it running."""
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            found: dict[str, Any] = client.get(path).json()
            if found["status"] in FINAL:
                return found
            time.sleep(1)
    except KeyboardInterrupt:
        client.post(f"{path}/cancel")
        while client.get(path).json()["status"] not in FINAL:
            time.sleep(1)
        raise
    raise TimeoutError(path)


def out_of_time(args: argparse.Namespace, k: int) -> bool:
    """True (and says so) when --minutes have passed since the check started: no run k starts then."""
    if args.minutes is None or time.monotonic() - args.started < 60 * args.minutes:
        return False
    print(f"  --minutes {args.minutes} passed: {k - 1} of {args.k} done, no more started")
    return True


def verdict_run(
    client: Any,
    variants: list[dict[str, Any]],
    args: argparse.Namespace,
    seed: int,
    aa_control: bool = True,
    rounds: int = ROUNDS,
) -> dict[str, Any]:
    """An interleaved insert-truncate run of `variants` with the A/A control, extended while open;
    {"run": its JSON, "rows": /api/compare's rows by variant index}."""
    body = {
        "workload": "insert-truncate",
        "variants": variants,
        "rounds": rounds,
        "block": BLOCK,
        "iterations": rounds * BLOCK,
        "max_rounds": args.max_rounds,
        "max_minutes": args.max_minutes,
        "aa_control": aa_control,
        "seed": seed,
    }
    created = client.post("/api/experiments", json=body)
    created.raise_for_status()
    queued = client.post(f"/api/experiments/{created.json()['id']}/runs")
    queued.raise_for_status()
    run = wait(client, f"/api/runs/{queued.json()['id']}")
    rows = client.get("/api/compare", params={"runs": str(run["id"]), "series": "false"}).json()["rows"]
    return {"run": run, "rows": {row["variant_index"]: row for row in rows}}


def verdict_check(
    client: Any, args: argparse.Namespace, label: str, variant: dict[str, Any], power: float
) -> bool:
    """K runs of default, `variant` and the A/A control: `variant` decided "improvement" in >= `power`
    of them and never "regression"; the A/A control decided in <= 5 %."""
    right = wrong = aa_false = succeeded = tried = 0
    print(
        f"{label}: {args.k} runs of {ROUNDS} rounds x {BLOCK} (to {args.max_rounds}), "
        f"load average {load_average()}"
    )
    for k in range(1, args.k + 1):
        if out_of_time(args, k):
            break
        tried, started = k, time.monotonic()
        found = verdict_run(client, [{"target": "mysql-9.7"}, variant], args, seed=100 + k)
        run, rows = found["run"], found["rows"]
        if run["status"] != "succeeded":
            print(f"  k={k} run #{run['id']} {run['status']}: {run['error']}")
            continue
        succeeded += 1
        ratio, aa = rows[1]["ratio"], rows[2]["ratio"]
        right += ratio["verdict"] == "improvement"
        wrong += ratio["verdict"] == "regression"
        aa_false += aa["verdict"] in DECIDED
        margin = effect_over_floor(ratio, rows[1].get("aa_floor"))
        print(
            f"  k={k} run #{run['id']}: {label} {interval(ratio)}; A/A {interval(aa)}; "
            f"effect/floor {margin if margin is None else round(margin, 2)}; "
            f"{time.monotonic() - started:.0f} s, load {load_average()}",
            flush=True,
        )
    return report(
        label,
        [
            Goal("runs succeeded", share(succeeded, tried), "all", succeeded == tried > 0),
            Goal(
                f"{label} improvement",
                share(right, succeeded),
                f">= {power * 100:.0f} %",
                right >= power * max(succeeded, 1),
            ),
            Goal(f"{label} regression", share(wrong, succeeded), "none", wrong == 0),
            Goal("A/A decided", share(aa_false, succeeded), "<= 5 %", aa_false <= 0.05 * succeeded),
        ],
    )


def constructed_gap(client: Any, args: argparse.Namespace) -> bool:
    """K attributions of the constructed gap; each must name exactly MATTER within the budget."""
    exact = tried = 0
    print(
        f"constructed gap: {args.k} attribution(s), steps {ROUNDS} rounds x {BLOCK}, "
        f"load average {load_average()}"
    )
    for k in range(1, args.k + 1):
        if out_of_time(args, k):
            break
        tried, started = k, time.monotonic()
        variants: list[dict[str, Any]] = [
            {"target": "mysql-9.7", "name": "default"},
            {"target": "mysql-9.7", "name": "tuned", "options": {**MATTER, **IRRELEVANT}},
        ]
        # the origin run as the gate test had it: 6 rounds, no A/A control, extended to 24 while open
        origin = verdict_run(client, variants, args, seed=200 + k, aa_control=False, rounds=6)
        gap = origin["rows"][1]["ratio"]
        print(f"  k={k} origin run #{origin['run']['id']}: {interval(gap)}")
        body = {"run_id": origin["run"]["id"], "variant": "tuned", "rounds": ROUNDS, "block": BLOCK}
        created = client.post("/api/attributions", json={**body, "budget_runs": ATTRIBUTION_BUDGET})
        if created.status_code != 201:
            print(f"  k={k} attribution refused: {created.status_code} {created.text}")
            continue
        found = wait(client, f"/api/attributions/{created.json()['id']}")
        result = found["result"] or {}
        named = set(result.get("set", [])) | {a["name"] for a in result.get("also", [])}
        ok = (
            found["status"] == "succeeded"
            and result.get("outcome") == "explained"
            and named == set(MATTER)
            and result.get("runs", ATTRIBUTION_BUDGET + 1) <= ATTRIBUTION_BUDGET
        )
        exact += ok
        print(
            f"  k={k} attribution #{found['id']} {found['status']}: {result.get('outcome')}, named "
            f"{sorted(named) or 'nothing'}, {result.get('runs')} step runs, {result.get('minutes')} min "
            f"(check {(time.monotonic() - started) / 60:.1f} min), load {load_average()}"
        )
        for member in result.get("members", []):
            print(
                f"      member {member['name']}: {member['contribution']} [{member['low']}, {member['high']}]"
            )
        for also in result.get("also", []):
            print(f"      beside {also['name']}: {json.dumps(also.get('alone'))} ({also.get('decided_by')})")
    return report(
        "constructed-gap",
        [
            Goal(
                "named exactly the two, none of the five",
                share(exact, tried),
                "every attribution",
                exact == tried > 0,
            )
        ],
    )


def parallel_read(api: str, args: argparse.Namespace) -> bool:
    """One warm parallel-read run (threads 1 and 2, 10 rounds of 5 counts per group, A/A control),
    through `upgradelab run --json` as a user runs it."""
    print(f"parallel-read: threads=2 / threads=1, 10 rounds, load average {load_average()}")
    command = [
        str(Path(sys.executable).parent / "upgradelab"), "run", "--api", api, "--workload", "parallel-read",
        "--variant", "mysql-9.7", "--aa-control", "--policy", "warm", "--iterations", "50", "--rounds", "10",
        "--param", "log2_rows=20", "--param", "threads=[1, 2]", "--param", "buffer_pool_size=256M",
        "--seed", "23", "--json",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0:
        print(done.stderr[-2000:])
        return report("parallel-read", [Goal("run", f"exit {done.returncode}", "exit 0", False)])
    result = json.loads(done.stdout)
    [first, *_] = [r for r in result["contrasts"] if r["name"] == "threads=2 / threads=1"]
    [change] = result["contrast_changes"]
    for row in (first, change):
        print(f"  {row['variant']}: {interval(row)}")
    return report(
        "parallel-read",
        [
            Goal(
                "threads=2 / threads=1",
                f"{first['verdict']}, high {first['high']:.3f}",
                "improvement, high < 1",
                first["verdict"] == "improvement" and first["high"] < 1,
            ),
            Goal(
                "the A/A control's change",
                str(change["verdict"]),
                "undecided",
                change["verdict"] not in DECIDED,
            ),
        ],
    )


def replay_resolution(args: argparse.Namespace) -> bool:
    """bench/replay_resolution.py once: mode after, layout pass, extension to 3x the rounds."""
    import replay_resolution as bench

    from upgradelab.execution.schedule import plan
    from upgradelab.measurement import DumpDataset, file_sha256, parse_source, replay_rounds
    from upgradelab.replay.schemas import DEFAULT_PASSES, DEFAULT_ROUNDS, EXTENSION_FACTOR

    rounds = DEFAULT_ROUNDS
    print(
        f"replay resolution: {rounds} rounds x {DEFAULT_PASSES} passes, to "
        f"{EXTENSION_FACTOR * rounds}, load average {load_average()}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        dump = Path(scratch) / "bench.sql"
        bench.write_dump(dump)
        dataset = DumpDataset(dump, file_sha256(dump), "bench")
        one = parse_source("SELECT 1;").statements
        replay_rounds(bench.variants(), dataset, one, plan("interleaved", 1, 1, 1, 3))  # loads
        r = bench.bench("after", "pass", dataset, rounds, DEFAULT_PASSES, EXTENSION_FACTOR * rounds)
    mde = "-" if r["mde_median"] is None else f"{r['mde_median']:.1%}"
    print(
        f"  {r['shapes']} shapes ({r['fastest_ms']:.2f}-{r['slowest_ms']:.1f} ms), "
        f"A/A same {r['aa_same']:.0%}, "
        f"false A/A {r['aa_false']} + c {r['c_false']}, planted {r['planted']}, median mde(b) {mde}, "
        f"rounds {r['rounds_median']:.0f}/{r['rounds_max']} ({r['extended']} extended), {r['wall_s']:.0f} s"
    )
    return report(
        "replay-resolution",
        [
            Goal('A/A "same"', f"{r['aa_same']:.0%}", ">= 90 %", r["aa_same"] >= 0.9),
            Goal(
                "false slower/faster",
                f"{r['aa_false']} + {r['c_false']}",
                "0",
                not r["aa_false"] + r["c_false"],
            ),
            Goal("planted slowdown", r["planted"], PLANTED, r["planted"] == PLANTED),
        ],
    )


def verdicts_under_load(client: Any, args: argparse.Namespace) -> bool:
    """bench/verdict_robustness.py's two cases, interleaved, K each, its load window on."""
    import verdict_robustness as robustness

    options = argparse.Namespace(
        rounds=ROUNDS, block=BLOCK, max_rounds=args.max_rounds, max_minutes=args.max_minutes
    )
    print(f"verdicts under load: {args.k} runs per case, load window on, load average {load_average()}")
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="upgradelab-load-") as scratch:
        load = robustness.Load(Path(scratch))
        for k in range(1, args.k + 1):
            if out_of_time(args, k):
                break
            for case in robustness.CASES:
                one = robustness.run_once(client, case, "interleaved", options, load)
                outcomes.append(one)
                print(
                    f"  k={k} {case:<20} run #{one.run_id} {one.status}: {one.ratio or math.nan:.3f} "
                    f"[{one.low or math.nan:.3f}, {one.high or math.nan:.3f}] {one.verdict}, "
                    f"{one.rounds} rounds, "
                    f"{one.wall_s or math.nan:.0f} s, load {load_average()}",
                    flush=True,
                )
    aa = [o for o in outcomes if o.case == "A vs A" and o.status == "succeeded"]
    redo = [o for o in outcomes if o.case != "A vs A" and o.status == "succeeded"]
    false = sum(o.verdict in DECIDED for o in aa)
    right = sum(o.verdict == "improvement" for o in redo)
    wrong = sum(o.verdict == "regression" for o in redo)
    return report(
        "verdicts-under-load",
        [
            Goal(
                "runs succeeded", share(len(aa + redo), len(outcomes)), "all", len(aa + redo) == len(outcomes)
            ),
            Goal("A/A false verdict", share(false, len(aa)), "<= 5 %", false <= 0.05 * len(aa)),
            Goal("redo-off improvement", share(right, len(redo)), ">= 95 %", right >= 0.95 * len(redo) > 0),
            Goal("redo-off regression", share(wrong, len(redo)), "none", wrong == 0),
        ],
    )


CHECKS = (
    "constructed-gap",
    "unexplained-gap",
    "redo-off",
    "skip-log-bin",
    "parallel-read",
    "replay-resolution",
    "replay-causes",
    "verdicts-under-load",
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("check", choices=CHECKS)
    parser.add_argument(
        "--k", type=int, default=None, help="repetitions (default: 1 for the two gap checks, 4 else)"
    )
    parser.add_argument("--max-rounds", type=int, default=30, help="a run's extension budget (rounds)")
    parser.add_argument("--max-minutes", type=float, default=4, help="a run's extension budget (minutes)")
    parser.add_argument("--minutes", type=float, help="no repetition starts after this many minutes")
    args = parser.parse_args()
    args.started = time.monotonic()
    args.k = args.k or (1 if args.check in ("constructed-gap", "unexplained-gap") else 4)
    print(
        f"power check {args.check}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores, commit {commit()}"
    )
    if args.check == "replay-resolution":
        sys.exit(0 if replay_resolution(args) else 1)
    if args.check == "replay-causes":
        import replay_causes

        sys.exit(0 if replay_causes.check() else 1)

    import httpx
    import instance

    with (
        instance.instance(worker=True) as api,
        httpx.Client(base_url=api, headers=instance.auth_headers(), timeout=120) as client,
    ):
        if args.check == "constructed-gap":
            passed = constructed_gap(client, args)
        elif args.check == "unexplained-gap":
            import unexplained_gap

            passed = unexplained_gap.check(client, args, 34400 + instance.OFFSET)
        elif args.check == "redo-off":
            passed = verdict_check(
                client, args, "redo-off", {"target": "mysql-9.7", "preset": "redo-off"}, 0.95
            )
        elif args.check == "skip-log-bin":
            variant = {"target": "mysql-9.7", "name": "skip-log-bin", "options": {"skip-log-bin": None}}
            passed = verdict_check(client, args, "skip-log-bin", variant, 0.8)
        elif args.check == "parallel-read":
            passed = parallel_read(api, args)
        else:
            passed = verdicts_under_load(client, args)
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
