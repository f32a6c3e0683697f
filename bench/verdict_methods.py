"""Which interval on the paired per-round ratios survives a load window? t, Hodges-Lehmann, trimmed t.

Two sources, every estimator of results/stats/paired.py on the very same rounds, the verdict rules of
results/stats/verdicts.py (threshold 5 %, no A/A floor: the bench's runs compare two variants):

- real runs: the --dump files of bench/verdict_robustness.py (round value = median of the block);
- synthetic runs (--synthetic N): ROUNDS rounds, two variants, blocks in a shuffled order per round;
  a block's log time = the variant's true shift + quiet noise (sd QUIET) and, when the block falls
  in the load window (the middle third of the run's blocks, in execution order), + a load penalty
  drawn per block from U(LOAD_LOW, LOAD_HIGH) plus extra noise (sd LOADED): a round whose two blocks
  straddle the window's edge is what swings a per-round ratio by 30-90 %.

Reported per source, case and estimator: A/A "no significant difference" and false
regression/improvement shares; redo-off right direction (improvement) and wrong (regression).

    .venv/bin/python bench/verdict_methods.py --dump /tmp/r10b10.json --synthetic 2000 [--rounds 10]
        [--first-rounds 10]
"""

import argparse
import json
import math
import sys
from collections import Counter, defaultdict
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend"))
from upgradelab.results.stats import paired, verdicts

QUIET, LOADED = 0.04, 0.15  # sd of a block's log time, quiet and under load
LOAD_LOW, LOAD_HIGH = (
    0.3,
    0.9,
)  # a loaded block is exp(U(0.3, 0.9)) slower: 35 % to 2.5x
REDO_OFF = math.log(0.6)  # redo-off's shift as measured on the lab's MySQL 9.7 (ratio ~0.58-0.62)


def decide(logs: np.ndarray, estimator: paired.Estimator) -> str:
    """The product's verdict (seconds: lower is better) on per-round log ratios with `estimator`."""
    found = paired.shift(logs, estimator)
    if found is None:
        return "inconclusive"
    point, low, high = (math.exp(v) for v in found)
    interval = verdicts.Interval(point, low, high, len(logs), "paired rounds")
    decision = verdicts.decide(interval, verdicts.DEFAULT_THRESHOLD)
    return decision.verdict if decision else "none"


def real_logs(dump: dict[str, Any], first: int | None = None) -> list[tuple[str, np.ndarray]]:
    """(case, per-round log ratios) of every succeeded interleaved run of a dump; `first`: only its
    first rounds (an auto-extended run cut back to its planned rounds: the run without extension)."""
    out = []
    for run in dump["runs"]:
        if run["status"] != "succeeded" or run["schedule"] != "interleaved":
            continue
        blocks: dict[tuple[int, int], list[float]] = defaultdict(list)
        for variant, round_number, seconds in run["iterations"]:
            blocks[(0 if variant == 0 else 1, round_number)].append(seconds)
        rounds = sorted({r for _, r in blocks if (0, r) in blocks and (1, r) in blocks})[:first]
        logs = [math.log(median(blocks[(1, r)]) / median(blocks[(0, r)])) for r in rounds]
        out.append((run["case"], np.array(logs)))
    return out


def synthetic_logs(rng: np.random.Generator, rounds: int, true_shift: float, quiet: float) -> np.ndarray:
    """One synthetic run's per-round log ratios (see the module docstring)."""
    blocks = rounds * 2
    window = range(blocks // 3, 2 * blocks // 3)
    logs = []
    for r in range(rounds):
        order = rng.permutation(2)
        times = np.zeros(2)
        for position, variant in enumerate(order):
            value = (true_shift if variant == 1 else 0.0) + rng.normal(0, quiet)
            if 2 * r + position in window:
                value += rng.uniform(LOAD_LOW, LOAD_HIGH) + rng.normal(0, LOADED)
            times[variant] = value
        logs.append(times[1] - times[0])
    return np.array(logs)


def report(source: str, runs: list[tuple[str, np.ndarray]]) -> None:
    print(f"\n{source}: {len(runs)} runs")
    print(f"{'case':<22}{'estimator':<17}{'figure':<32}{'share':>18}")
    for case in ("A vs A", "default vs redo-off"):
        mine = [logs for c, logs in runs if c == case]
        if not mine:
            continue
        for estimator in paired.ESTIMATORS:
            seen = Counter(decide(logs, estimator) for logs in mine)
            figures = (
                [
                    ("no significant difference", {"no significant difference"}),
                    ("false verdict", {"regression", "improvement"}),
                ]
                if case == "A vs A"
                else [
                    ("right direction (improvement)", {"improvement"}),
                    ("wrong (regression)", {"regression"}),
                ]
            )
            for label, names in figures:
                hits = sum(seen[n] for n in names)
                share = f"{hits}/{len(mine)} ({100 * hits / len(mine):.0f} %)"
                print(f"{case:<22}{estimator:<17}{label:<32}{share:>18}")
            print(
                f"{case:<22}{estimator:<17}{'median smallest detectable chg':<32}{mde(mine, estimator):>18}"
            )


def mde(runs: list[np.ndarray], estimator: paired.Estimator) -> str:
    """The median over runs of sqrt(high / low) - 1 (the interval's half-width as a fraction)."""
    found = [shift for logs in runs if (shift := paired.shift(logs, estimator)) is not None]
    return f"{100 * float(np.median([math.expm1((high - low) / 2) for _, low, high in found])):.1f} %"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--dump",
        type=Path,
        nargs="*",
        default=[],
        help="bench/verdict_robustness.py --dump files",
    )
    parser.add_argument("--synthetic", type=int, default=0, help="synthetic runs per case")
    parser.add_argument(
        "--rounds",
        type=int,
        nargs="+",
        default=[10],
        help="rounds of the synthetic runs",
    )
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument(
        "--first-rounds", type=int, help="also report the dumped runs cut to this many rounds"
    )
    parser.add_argument(
        "--quiet",
        type=float,
        default=QUIET,
        help="sd of a quiet block's log time (0.16: the shared lab host)",
    )
    args = parser.parse_args()
    for path in args.dump:
        dump = json.loads(path.read_text())
        report(f"real runs, {path.name} {dump['settings']}", real_logs(dump))
        if args.first_rounds:
            cut = real_logs(dump, args.first_rounds)
            report(f"real runs, {path.name}, their first {args.first_rounds} rounds only", cut)
    rng = np.random.default_rng(args.seed)
    for rounds in args.rounds if args.synthetic else []:
        runs = [
            (case, synthetic_logs(rng, rounds, shift, args.quiet))
            for case, shift in (("A vs A", 0.0), ("default vs redo-off", REDO_OFF))
            for _ in range(args.synthetic)
        ]
        report(
            f"synthetic, {rounds} rounds, quiet sd {args.quiet}, load window on the middle third",
            runs,
        )


if __name__ == "__main__":
    main()
