"""Why the batched pass biased the A/A control (issue 51): its reads, its SET, or the turns' order.

The first round's batched pass (timing.BATCH_READS) changed two things at once: the runs' history rows
read once after the pass instead of after every run, and the session made read-only once a pass
instead of before every run. bench/replay_causes.py's A/A control then read "same" on 42 % and 70 % of
its fingerprints (b 13-23 % faster on the scans) against 100 % by the per-run path, in separate
invocations. A third candidate is the turns' order (measurement/turns.py BALANCED): a round's order
rotated at each turn keeps each variant's predecessor fixed within the round, and replay_causes'
seed puts "a" after the planted variants (c: the general log; d: big's index dropped, full scans)
544 times against 338 for "b": whatever a pass leaves to the next one (caches, deferred work) lands
more on a.

This bench replays replay_causes.py's four variants (its dataset and 33 shapes, imported: a, b the A/A
control, c with the general log, d without big's k_k index) without extension, once per mode, in ONE
invocation in the order given (a drift of the host's load lands on every mode):
  - per-run: the code before issue 51 (BATCH_READS off; SET before every run);
  - batch: the first round's (BATCH_READS on; SET once a pass);
  - batch-set: the batched reads with the per-run SET kept (timing.READ_ONLY_EVERY "run"; not a
    measurement yet: ServerClock.pass_events finds no run of a pass whose runs have a SET between
    them, so every pass waits EVENT_WAIT_S and counts the client's time; not in the default modes);
  - noset: the per-run reads with the SET once a pass (timing.READ_ONLY_EVERY "pass");
  - balanced, per-run-balanced: batch, per-run with the turns balanced (turns.BALANCED);
  - turns: per-run-balanced with the database selected only where it differs (passes.py);
  - defaults: the product's as this checkout has them (timing.BATCH_READS, READ_ONLY_EVERY,
    turns.BALANCED, passes.SELECT_DB_EVERY_PASS); the others select the database before every pass,
    as before issue 51.
A mode's name may be followed by levers (issue 51, round 5), each "+<lever>": "+noset" the SET once
a pass (timing.READ_ONLY_EVERY "pass"), "+set" before every run ("run"), "+wall" the pass's budget
counted on its wall clock (timing.BUDGET "wall"), "+runs" on the runs' own time; then "@<ms>": the
pass's repetition budget (timing.MIN_MEASURED_S) in milliseconds, and "x<n>": at most n runs a pass
(timing.MAX_REPEATS); the product's without (defaults+noset+wall@10x100). --extend: a replay's
extension (to 3x --rounds, the still undecided fingerprints), as replay_causes.py runs it.
Per replay: b's share of fingerprints "same" (and slower/faster/undecided), the A/A intervals'
half-width (each fingerprint's b/a VerdictRead.mde: median, p90) and the rounds' median,
replay_causes.py's goals (c's own findings: false ones; d's plan changes), the DO 0 floor line, the
b/a ratio per statement of the pass medians' medians (geometric mean [min, max] over the statements
whose baseline median is >= 0.5 ms, "scans"), and the carryover: per variant a and b, how far its
scans' passes right after each other variant sit from its own median (geometric mean of pass / median,
with the pass count).

Run by hand (root, the lab installed), from the repository root:
    .venv/bin/python bench/replay_aa_reads.py [--rounds 8] [--modes batch,balanced,per-run,noset,...]
    .venv/bin/python bench/replay_aa_reads.py --rounds 20 --extend --modes defaults,per-run,defaults@10
    .venv/bin/python bench/replay_aa_reads.py --rounds 20 --extend --modes defaults+noset+wall,defaults
Servers: /var/lib/upgradelab/bench-servers-aa-reads (its own, so replay_causes.py may run beside it),
ports 28591-28594.
"""

import argparse
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

os.environ.setdefault("UPGRADELAB_SERVER_DIR", "/var/lib/upgradelab/bench-servers-aa-reads")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "backend"))
import replay_causes as causes  # noqa: E402  (replay_resolution's import keeps the server dir set above)
import replay_resolution as base  # noqa: E402
from power_checks import commit, load_average  # noqa: E402

from upgradelab.execution.schedule import plan  # noqa: E402
from upgradelab.measurement import passes, timing, turns  # noqa: E402
from upgradelab.replay.schemas import DEFAULT_PASSES, EXTENSION_FACTOR  # noqa: E402

# mode: (timing.BATCH_READS, timing.READ_ONLY_EVERY, turns.BALANCED, passes.SELECT_DB_EVERY_PASS,
# timing.BUDGET); "defaults": the product's, as this checkout has them. A mode's levers, budget and
# repeats (module docstring) follow its name: LEVERS, "@<ms>" and "x<n>"; without them the mode's own.
Every = Literal["run", "pass"] | None
MODES: dict[str, tuple[bool, Every, bool, bool, Literal["runs", "wall"]]] = {
    "per-run": (False, None, False, True, "runs"),
    "batch": (True, None, False, True, "runs"),
    "batch-set": (True, "run", False, True, "runs"),
    "noset": (False, "pass", False, True, "runs"),
    "balanced": (True, None, True, True, "runs"),
    "per-run-balanced": (False, None, True, True, "runs"),
    # per-run-balanced with the database selected only where it differs
    "turns": (False, None, True, False, "runs"),
    "defaults": (
        timing.BATCH_READS,
        timing.READ_ONLY_EVERY,
        turns.BALANCED,
        passes.SELECT_DB_EVERY_PASS,
        timing.BUDGET,
    ),
}
# "+<lever>": (the timing module's constant, its value)
LEVERS: dict[str, tuple[str, object]] = {
    "noset": ("READ_ONLY_EVERY", "pass"),
    "set": ("READ_ONLY_EVERY", "run"),
    "wall": ("BUDGET", "wall"),
    "runs": ("BUDGET", "runs"),
}
MODE = re.compile(r"(?P<name>[a-z-]+)(?P<levers>(\+[a-z]+)*)(@(?P<ms>[0-9.]+))?(x(?P<repeats>[0-9]+))?")
MIN_MEASURED_S, MAX_REPEATS = timing.MIN_MEASURED_S, timing.MAX_REPEATS  # the product's
PORTS = {"a": 28591, "b": 28592, "c": 28593, "d": 28594}
SCAN_S = 0.0005  # a statement whose baseline median is at least this is counted with the scans
SEED = 7  # replay_causes.replay's plan


def scans(timed: dict[str, Any]) -> list[int]:
    """The statements whose baseline median (server clock) is >= SCAN_S, the null statement left out;
    one with a None or inf pass on a or b is skipped."""
    a, b = timed["a"], timed["b"]
    out = []
    for index in range(len(a["statements"])):
        values = [*a["times"][index], *b["times"][index]]
        if index == a["null_statement"] or not values or any(v is None or v == math.inf for v in values):
            continue
        if statistics.median(a["times"][index]) >= SCAN_S:
            out.append(index)
    return out


def geometric(values: list[float]) -> str:
    """Geometric mean [min, max] of ratios, or "-"."""
    if not values:
        return "-"
    mean = math.exp(statistics.fmean(math.log(v) for v in values))
    return f"{mean:.3f}x [{min(values):.2f}, {max(values):.2f}] of {len(values)}"


def carryover(timed: dict[str, Any], chosen: list[int], rounds: int) -> dict[tuple[str, str], list[float]]:
    """{(variant, the variant timed right before it): [pass / its statement's median, ...]} over the
    statements `chosen`, for a and b: the turns rebuilt as the replay laid them out (its plan,
    turns.round_turns with the BALANCED in force), a pass matched to its turn by its order."""
    names = list(PORTS)
    schedule = plan("interleaved", rounds, DEFAULT_PASSES, SEED, len(names))
    count = len(timed["a"]["times"])  # the null statement (DO 0) included: it takes its turns too
    seen: dict[tuple[int, int], int] = defaultdict(int)
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    before: int | None = None
    for order in schedule.order:
        for variant, statement, _ in turns.round_turns(order, count, schedule.block, "pass"):
            number = seen[variant, statement]
            seen[variant, statement] += 1
            name = names[variant]
            if name in ("a", "b") and statement in chosen and before is not None and before != variant:
                values = timed[name]["times"][statement]
                out[name, names[before]].append(values[number] / statistics.median(values))
            before = variant
    return out


def unknown_modes(modes: list[str]) -> list[str]:
    """The modes of `modes` apply_mode cannot put in force (a name not in MODES, a lever not in
    LEVERS, or not of the form name+lever@msxN)."""
    out = []
    for mode in modes:
        found = MODE.fullmatch(mode)
        levers = found["levers"].split("+")[1:] if found else []
        if not found or found["name"] not in MODES or any(lever not in LEVERS for lever in levers):
            out.append(mode)
    return out


def apply_mode(mode: str) -> None:
    """Put `mode` (MODES, its "+<lever>"s, "@<ms>" budget and "x<n>" repeats) in force in this process
    (bench/replay_speed.py's modes too); ValueError for an unknown one (unknown_modes)."""
    found = MODE.fullmatch(mode)
    if found is None or unknown_modes([mode]):
        raise ValueError(f"mode {mode!r}: not name[+lever...][@ms][xN] of {', '.join(MODES)}")
    (
        timing.BATCH_READS,
        timing.READ_ONLY_EVERY,
        turns.BALANCED,
        passes.SELECT_DB_EVERY_PASS,
        timing.BUDGET,
    ) = MODES[found["name"]]
    for lever in found["levers"].split("+")[1:]:
        setattr(timing, *LEVERS[lever])
    timing.MIN_MEASURED_S = float(found["ms"]) / 1e3 if found["ms"] else MIN_MEASURED_S
    timing.MAX_REPEATS = int(found["repeats"]) if found["repeats"] else MAX_REPEATS


def one_mode(mode: str, dataset: Any, sql: str, rounds: int, max_rounds: int) -> None:
    """One replay of the four variants in `mode`, extended to `max_rounds` as a replay is; its lines
    (the carryover only without extension: the turns are rebuilt from the planned rounds)."""
    apply_mode(mode)
    run = causes.replay(list(PORTS), dataset, sql, rounds, max_rounds, "b")
    document, timed = run["document"], run["timed"]
    row = next(one for one in causes.variant_rows(document) if one["variant"] == "b")
    # the A/A control's intervals: each fingerprint's b/a half-width (VerdictRead.mde, a fraction)
    widths = sorted(f["ratios"]["b"]["mde"] for f in document["fingerprints"] if f.get("ratios", {}).get("b"))
    chosen = scans(timed)
    ratios = [
        statistics.median(timed["b"]["times"][index]) / statistics.median(timed["a"]["times"][index])
        for index in chosen
    ]
    after = carryover(timed, chosen, rounds) if max_rounds == rounds else {}
    table = "; ".join(f"{one} after {other}: {geometric(after[one, other])}" for one, other in sorted(after))
    goals = "; ".join(
        f"{goal.name}: {goal.figure} ({'PASS' if goal.met else 'FAIL'})" for goal in causes.goals(document)
    )
    print(
        f"{mode:<16} wall {run['wall_s']:5.0f} s, load {run['load'][0]} -> {run['load'][1]}: "
        f'A/A "same" {row["same_share"]:.0%} (slower {row["today_slower"]}, faster {row["today_faster"]}, '
        f"undecided {row['undecided']}); b/a on the scans {geometric(ratios)}; A/A interval half-width "
        f"median {_quantile(widths, 0.5):.1%}, p90 {_quantile(widths, 0.9):.1%} of {len(widths)}; "
        f"rounds median {statistics.median(f.get('rounds') or 0 for f in document['fingerprints']):.0f}\n"
        f"    {row['cost_text']}\n    carryover (scans' pass / median): {table or '- (extended)'}\n"
        f"    replay_causes goals: {goals}",
        flush=True,
    )


def _quantile(values: list[float], q: float) -> float:
    """The q-quantile of sorted `values` (nearest rank), nan when empty."""
    return values[min(len(values) - 1, int(q * len(values)))] if values else math.nan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument(
        "--extend", action="store_true", help=f"extended as a replay is, to {EXTENSION_FACTOR}x --rounds"
    )
    parser.add_argument("--modes", default="batch,balanced,per-run,noset")
    parser.add_argument("--cost", choices=list(causes.COST_PLANTS), default="general-log", help="c's plant")
    args = parser.parse_args()
    modes = args.modes.split(",")
    max_rounds = EXTENSION_FACTOR * args.rounds if args.extend else args.rounds
    unknown = unknown_modes(modes)
    if unknown:
        parser.error(
            f"--modes: unknown {', '.join(unknown)} (known: {', '.join(MODES)}, "
            f"each +{'/+'.join(LEVERS)}, @<ms>, x<n>)"
        )
    causes.PORTS.clear()
    causes.PORTS.update(PORTS)  # this bench's ports
    causes.COST_OPTIONS[:] = causes.COST_PLANTS[args.cost]
    print(
        f"replay A/A reads, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit()}: "
        f"{args.rounds} rounds x {DEFAULT_PASSES} passes to {max_rounds}, a b c d on {causes.TARGET} "
        f"(c: {' '.join(causes.COST_OPTIONS)}), modes {','.join(modes)}, load average {load_average()}",
        flush=True,
    )
    shapes = [one for one in base.queries().split(";\n") if one.strip()]
    sql = ";\n".join(shapes) + ";\n"
    with tempfile.TemporaryDirectory() as scratch:
        causes.SAVE_TO[:] = [scratch]  # the replays' timed passes are kept in their result
        dataset = causes.loaded(Path(scratch))
        causes.drop_index(causes.provisioner("d"))
        try:
            for mode in modes:
                one_mode(mode, dataset, sql, args.rounds, max_rounds)
        finally:
            for name in PORTS:
                causes.provisioner(name).stop_all()


if __name__ == "__main__":
    main()
