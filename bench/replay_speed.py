"""How fast a replay's timed rounds run against the statements' own time (issue 51), side by side.

replay_resolution.py's dataset and 33 statement shapes (imported, not copied: the public sample's
shape, point reads to group-bys), replayed on one lab instance each of mariadb-10.11 and mariadb-11.8,
10 rounds x 2 passes (DEFAULT_PASSES), no extension, once per mode in the order given (default
per-run,batch,per-run,batch: a drift of the host's load lands on both):
  - per-run: each timed run's history row read right after it (timing.py BATCH_READS False:
    ServerClock.last, polled until the server closed the statement's event) and the session made
    read-only before every run (SET SESSION TRANSACTION READ ONLY), as before issue 51;
  - batch: the session made read-only once a pass, its rows read once after the pass from the long
    history (ServerClock.pass_events);
  - any other of bench/replay_aa_reads.py's modes (balanced: batch with turns.BALANCED; defaults: the
    product's), each optionally with its levers ("+noset": the SET once a pass; "+wall": the pass's
    budget on its wall clock), "@<ms>", the pass's repetition budget (timing.MIN_MEASURED_S), and
    "x<n>", at most n runs a pass (timing.MAX_REPEATS): replay_aa_reads.py's docstring.
Per replay it prints the rounds' wall clock (from round 1's start: the loads and outcomes excluded),
the statements' own server time (the sum of every timed run's TIMER_WAIT; a run read by the client's
clock counts its client time), their ratio, the wall clock per timed execution and the wall clock
beyond 2x the own time per execution, the passes left on the client's clock (their rows never all
came) and the DO 0 floor; then the timed passes (a statement's pass on one variant: the issue's
"timed executions"), the sum of their values (each the median of its runs: the report's time) and
the issue's goal on them: the rounds within 2x that sum plus 2 ms a pass;
with --profile, a py-spy sampling profile (wall clock, idle included) of the replay's thread during
the first replay of each mode: the share of samples in the hot path's parts.

Run by hand (root, the lab installed: py-spy is a dev dependency), from the repository root:
    .venv/bin/python bench/replay_speed.py [--rounds 10] [--modes per-run,batch,...] [--profile]
    .venv/bin/python bench/replay_speed.py --modes defaults,defaults+noset,defaults+wall,defaults+noset+wall
Servers: /var/lib/upgradelab/bench-servers-speed, ports 36061-36062.
"""

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("UPGRADELAB_SERVER_DIR", "/var/lib/upgradelab/bench-servers-speed")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "backend"))
import replay_aa_reads as aa_reads  # noqa: E402  (its modes; this file's server dir set above wins)
import replay_resolution as base  # noqa: E402
import replay_stage_cost as stage_cost  # noqa: E402
from power_checks import commit, load_average  # noqa: E402

from upgradelab.execution.schedule import plan  # noqa: E402
from upgradelab.measurement import (  # noqa: E402
    DumpDataset,
    ReplayVariant,
    SourceStatement,
    VariantReplay,
    file_sha256,
    parse_source,
    passes,
    replay_rounds,
    timing,
)
from upgradelab.replay.schemas import DEFAULT_PASSES  # noqa: E402
from upgradelab.settings import get_settings  # noqa: E402
from upgradelab.targets.provisioners import LocalProvisioner  # noqa: E402

VARIANTS = {"mariadb-10.11": 36061, "mariadb-11.8": 36062}
DATABASE = "bench"
# the hot path's parts a profile sample is counted in (inclusive: a sample counts in each it is
# under), by py-spy's frame name (qualified by its class) and file
PARTS = (
    ("timed_runs", "timing.py"),
    ("ServerClock.last", "timing.py"),
    ("ServerClock.pass_events", "timing.py"),
    ("Statements.drain", "outcomes.py"),
    ("Statements._prepare", "outcomes.py"),
    ("sleep", ""),
    ("statement_passes", "passes.py"),
)


class Tally:
    """Every timed run of a replay (the warm-up left out): how many, their own seconds."""

    def __init__(self) -> None:
        self.executions = 0
        self.own_s = 0.0
        self.passes = 0  # timed passes (a statement's, on one variant): the "timed executions"
        self.medians_s = 0.0  # the sum of their values (each the median of its runs): the report's time
        original = getattr(passes, "timed_runs")  # noqa: B009  (not in passes' exports)

        def counted(*args: Any, **kwargs: Any) -> list[float] | None:
            runs: list[float] | None = original(*args, **kwargs)
            if runs and kwargs.get("max_repeats") != 1:
                finite = [r for r in runs if r != math.inf]
                self.executions += len(finite)
                self.own_s += sum(finite)
                if finite:
                    self.passes += 1
                    self.medians_s += statistics.median(finite)
            return runs

        setattr(passes, "timed_runs", counted)  # noqa: B010
        self.original = original
        self.client_passes = 0  # passes whose rows never all came: timed by the client's clock
        reader = timing.ServerClock.pass_events

        def read(
            clock: timing.ServerClock, sql: str, runs: int, after: int
        ) -> list[timing.StatementEvent] | None:
            events = reader(clock, sql, runs, after)
            self.client_passes += events is None
            return events

        self.reader = reader
        setattr(timing.ServerClock, "pass_events", read)  # noqa: B010

    def restore(self) -> None:
        """passes.timed_runs as it was."""
        setattr(passes, "timed_runs", self.original)  # noqa: B010
        setattr(timing.ServerClock, "pass_events", self.reader)  # noqa: B010


def provisioner(name: str) -> LocalProvisioner:
    target = stage_cost.lab_target(name)
    settings = {**target["settings"], "port": VARIANTS[name]}
    return LocalProvisioner(f"{name}-speed", target["flavor"], settings, get_settings())


def variants() -> list[ReplayVariant]:
    return [ReplayVariant(name, provisioner(name), []) for name in VARIANTS]


def profile_summary(raw: Path) -> str:
    """The share of the replay thread's samples (py-spy --format raw: collapsed stacks) in each PARTS."""
    parts: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if "timed_runs" not in stack and "replay_rounds" not in stack:
            continue  # another thread (py-spy's own samples of the watchdog, the main thread idle)
        total += int(count)
        frames = stack.split(";")
        for name, where in PARTS:
            if any(f.strip().startswith(f"{name} (") and where in f for f in frames):
                parts[name] += int(count)
    if not total:
        return "no samples of the replay's thread"
    return (
        ", ".join(f"{name} {100 * parts[name] / total:.0f} %" for name, _ in PARTS) + f" of {total} samples"
    )


def one_replay(
    dataset: DumpDataset, statements: list[SourceStatement], rounds: int, mode: str, profile: bool
) -> dict[str, Any]:
    """One replay in `mode` (module docstring): its figures."""
    aa_reads.apply_mode(mode)
    load = load_average()
    tally = Tally()
    rounds_started: list[float] = []
    spy: subprocess.Popen[bytes] | None = None
    raw = Path(tempfile.mkstemp(prefix=f"replay-speed-{mode}-", suffix=".txt")[1])

    def step(variant: str, phase: str) -> None:
        nonlocal spy
        if phase.startswith("round 1 ") and not rounds_started:
            rounds_started.append(time.monotonic())
            if profile:
                command = [str(REPO / ".venv/bin/py-spy"), "record", "--pid", str(os.getpid()), "--idle"]
                command += ["--nonblocking", "--rate", "200", "--format", "raw", "-o", str(raw)]
                spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    try:
        replays: list[VariantReplay] = replay_rounds(
            variants(),
            dataset,
            statements,
            plan("interleaved", rounds, DEFAULT_PASSES, 46, len(VARIANTS)),
            step=step,
        )
    finally:
        tally.restore()
    wall = time.monotonic() - rounds_started[0]
    if spy is not None:
        spy.send_signal(2)  # SIGINT: py-spy writes its samples and ends
        spy.wait(timeout=60)
    executions = max(1, tally.executions)
    beyond_ms = (wall - 2 * tally.own_s) / executions * 1e3
    found: dict[str, Any] = {
        "mode": mode,
        "wall_s": wall,
        "own_s": tally.own_s,
        "ratio": wall / tally.own_s if tally.own_s else None,
        "executions": tally.executions,
        "client_passes": tally.client_passes,
        "passes": tally.passes,
        "medians_s": tally.medians_s,
        # the goal (issue 51) on the report's time: the rounds within 2x the passes' medians + 2 ms a pass
        "goal_s": 2 * tally.medians_s + 0.002 * tally.passes,
        "per_execution_ms": wall / executions * 1e3,
        "beyond_2x_ms": beyond_ms,
        "null_us": {r.name: stage_cost._median_us(r.times[r.null_statement or 0]) for r in replays},
        "load": (load, load_average()),
        "profile": profile_summary(raw) if spy is not None else None,
    }
    if spy is None:
        raw.unlink(missing_ok=True)
    print(
        f"  {mode:>7}: rounds {wall:6.1f} s, own {tally.own_s:5.2f} s, ratio {found['ratio']:.1f}x, "
        f"{tally.executions} timed executions, {found['per_execution_ms']:.2f} ms each, "
        f"{beyond_ms:+.2f} ms each beyond 2x own, {tally.client_passes} passes on the client's clock; "
        "DO 0 (us) "
        f"{', '.join(f'{k} {v:.1f}' for k, v in found['null_us'].items() if v is not None)}; "
        f"load {load} -> {found['load'][1]}",
        flush=True,
    )
    print(
        f"           {tally.passes} timed passes, their medians {tally.medians_s:.2f} s in all: "
        f"{wall / max(1, tally.passes) * 1e3:.1f} ms of rounds a pass; goal 2x medians + 2 ms a pass "
        f"= {found['goal_s']:.1f} s: {'met' if wall <= found['goal_s'] else 'not met'}",
        flush=True,
    )
    if found["profile"]:
        print(f"           profile: {found['profile']} ({raw}: py-spy's raw samples)", flush=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--modes", default="per-run,batch,per-run,batch")
    parser.add_argument("--profile", action="store_true", help="py-spy the first replay of each mode")
    args = parser.parse_args()
    modes = args.modes.split(",")
    unknown = aa_reads.unknown_modes(modes)
    if unknown:
        parser.error(
            f"--modes: unknown {', '.join(unknown)} (known: {', '.join(aa_reads.MODES)}, "
            f"each +{'/+'.join(aa_reads.LEVERS)}, @<ms>, x<n>)"
        )
    print(
        f"replay speed, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit()}, "
        f"{args.rounds} rounds x {DEFAULT_PASSES} passes, no extension, {', '.join(VARIANTS)}, "
        f"modes {args.modes}, load average {load_average()}",
        flush=True,
    )
    statements = parse_source(base.queries()).statements
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        dump = Path(scratch) / "bench.sql"
        base.write_dump(dump)
        dataset = DumpDataset(dump, file_sha256(dump), DATABASE)
        one = parse_source("SELECT 1;").statements
        replay_rounds(variants(), dataset, one, plan("interleaved", 1, 1, 1, len(VARIANTS)))  # the loads
        try:
            for mode in modes:
                profile = args.profile and not any(r["mode"] == mode for r in runs)
                runs.append(one_replay(dataset, statements, args.rounds, mode, profile))
        finally:
            for name in VARIANTS:
                provisioner(name).stop_all()
    print()
    for mode in dict.fromkeys(modes):
        mine = [r for r in runs if r["mode"] == mode]
        print(
            f"  {mode}: rounds {statistics.median(r['wall_s'] for r in mine):.1f} s (median of {len(mine)}), "
            f"ratio {statistics.median(r['ratio'] for r in mine):.1f}x, "
            f"{statistics.median(r['per_execution_ms'] for r in mine):.2f} ms per execution, "
            f"{statistics.median(r['beyond_2x_ms'] for r in mine):+.2f} ms beyond 2x own; "
            f"goal (2x medians + 2 ms a pass) {statistics.median(r['goal_s'] for r in mine):.1f} s"
        )


if __name__ == "__main__":
    main()
