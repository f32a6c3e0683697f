"""What reading each timed run's stages costs a replay (issue 46, item 2), side by side in one run.

replay_resolution.py's dataset and 33 statement shapes (imported, not copied), replayed on one lab
instance each of mariadb-10.11 (the baseline), mariadb-11.8 and mysql-9.7, at a fixed number of
rounds (no extension: every replay times the same statements the same number of times), once per
setting in the order given (default off,on,off,on: each setting twice, alternating, so a drift of
the host's load lands on both):
  - off: as before stages (the instances start without the stage instruments and consumers; each
    timed run reads its statement row only);
  - on: the instances start with them (measurement/stage_events.py STAGE_OPTIONS) and --stage-runs
    (default 10, the setting's default) timed runs spread over each pass (timing.py StageSpread) read
    their stage rows with their statement row (one query, timing.py ServerClock.last);
  - every: the same, every timed run (UPGRADELAB_REPLAY_STAGE_RUNS=0).
Per replay it prints the wall clock of the rounds (the dump loads excluded: kept datadirs), the timed
runs read on the server's clock (their number depends on the client's time budget per pass,
timing.py), the wall clock per timed run, and per variant the null statement's median (`DO 0`,
server clock: the instrumentation's own cost per statement) and the median of the fingerprints'
times; then per setting the medians, and on/off ratios. With stages on it also prints how many
fingerprints got stage times on every variant, how many runs filled the stage history (incomplete),
and the causes of the slower/faster findings.

Run by hand (root, the lab installed), from the repository root:
    .venv/bin/python bench/replay_stage_cost.py [--rounds 10] [--settings off,on,every,...] [--stage-runs 10]
        [--json FILE]
Servers: /var/lib/upgradelab/bench-servers-stages, ports 36051-36053.
"""

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("UPGRADELAB_SERVER_DIR", "/var/lib/upgradelab/bench-servers-stages")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "backend"))
import replay_resolution as base  # noqa: E402
from power_checks import commit, load_average  # noqa: E402

from upgradelab.execution.schedule import plan  # noqa: E402
from upgradelab.measurement import (  # noqa: E402  # noqa: E402  # noqa: E402
    DumpDataset,
    ReplayVariant,
    SourceStatement,
    VariantReplay,
    file_sha256,
    parse_source,
    replay_rounds,
)
from upgradelab.replay.compare import compare  # noqa: E402
from upgradelab.replay.document import report_document  # noqa: E402
from upgradelab.replay.schemas import DEFAULT_PASSES  # noqa: E402
from upgradelab.settings import get_settings  # noqa: E402
from upgradelab.targets.provisioners import LocalProvisioner  # noqa: E402

VARIANTS = {"mariadb-10.11": 36051, "mariadb-11.8": 36052, "mysql-9.7": 36053}
STAGE_RUNS = [10]  # --stage-runs: UPGRADELAB_REPLAY_STAGE_RUNS of the "on" setting
DATABASE = "bench"


def lab_target(name: str) -> dict[str, Any]:
    """The seeded lab target's row: migration 0002's (replay_resolution.py), 0008's for mariadb-11.8."""
    if name != "mariadb-11.8":
        return base.lab_target(name)
    path = REPO / "backend/upgradelab/migrations/versions/0008_datasets_replay.py"
    spec = importlib.util.spec_from_file_location("datasets_replay", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: dict[str, Any] = module.MARIADB_11_8
    return found


def provisioner(name: str) -> LocalProvisioner:
    target = lab_target(name)
    settings = {**target["settings"], "port": VARIANTS[name]}
    return LocalProvisioner(f"{name}-stages", target["flavor"], settings, get_settings())


def variants() -> list[ReplayVariant]:
    return [ReplayVariant(name, provisioner(name), []) for name in VARIANTS]


def _median_us(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None and v != float("inf")]
    return statistics.median(kept) * 1e6 if kept else None


def one_replay(
    dataset: DumpDataset, statements: list[SourceStatement], rounds: int, setting: str
) -> dict[str, Any]:
    """One replay at UPGRADELAB_REPLAY_STAGES=`setting`: its figures (module docstring)."""
    os.environ["UPGRADELAB_REPLAY_STAGES"] = "0" if setting == "off" else "1"
    os.environ["UPGRADELAB_REPLAY_STAGE_RUNS"] = "0" if setting == "every" else str(STAGE_RUNS[0])
    get_settings.cache_clear()
    load = load_average()
    started = time.monotonic()
    replays: list[VariantReplay] = replay_rounds(
        variants(), dataset, statements, plan("interleaved", rounds, DEFAULT_PASSES, 46, len(VARIANTS))
    )
    wall = time.monotonic() - started
    reports = compare(statements, replays)
    document = report_document(statements, replays, reports)
    runs = sum(t.executions for r in replays for t in r.stages) if setting != "off" else None
    found: dict[str, Any] = {
        "setting": setting,
        "wall_s": wall,
        "load": (load, load_average()),
        "runs": sum(t.executions for r in replays for t in r.work),
        "stage_runs": runs,
        "incomplete": sum(t.incomplete for r in replays for t in r.stages),
        "null_us": {r.name: _median_us(r.times[r.null_statement or 0]) for r in replays},
        "statement_us": {
            r.name: statistics.median(
                m for i in range(len(statements)) if (m := _median_us(r.times[i])) is not None
            )
            for r in replays
        },
        "with_stages": sum(len(f.stages) == len(VARIANTS) for f in document.fingerprints),
        "causes": {
            s.variant: {"slower": s.slower_causes, "faster": s.faster_causes} for s in document.summary
        },
        "stages_text": document.stages,
    }
    print(
        f"  {setting:>3}: wall {wall:6.1f} s, {found['runs']} timed runs "
        f"({wall / max(1, found['runs']) * 1e6:.0f} us of wall clock each), "
        f"DO 0 (us) {', '.join(f'{k} {v:.1f}' for k, v in found['null_us'].items() if v is not None)}; "
        f"fingerprints' median (us) "
        f"{', '.join(f'{k} {v:.1f}' for k, v in found['statement_us'].items())}; "
        f"stage runs {runs}, incomplete {found['incomplete']}, fingerprints with stages on every variant "
        f"{found['with_stages']}; causes {found['causes']}; load {found['load'][0]} -> {found['load'][1]}",
        flush=True,
    )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--settings", default="off,on,off,on")
    parser.add_argument("--json", metavar="FILE", default=None)
    parser.add_argument("--stage-runs", type=int, default=10, help='runs a pass read for stages at "on"')
    args = parser.parse_args()
    STAGE_RUNS[:] = [args.stage_runs]
    settings = args.settings.split(",")
    print(
        f"replay stage cost, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit()}, "
        f"{args.rounds} rounds x {DEFAULT_PASSES} passes, no extension, {', '.join(VARIANTS)}, "
        f"settings {args.settings}, load average {load_average()}",
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
            for setting in settings:
                runs.append(one_replay(dataset, statements, args.rounds, setting))
        finally:
            for name in VARIANTS:
                provisioner(name).stop_all()
    print()
    for setting in sorted(set(settings)):
        walls = [r["wall_s"] for r in runs if r["setting"] == setting]
        shown = ", ".join(f"{w:.1f}" for w in walls)
        print(f"  {setting}: wall {shown} s (median {statistics.median(walls):.1f})")
    off = statistics.median(r["wall_s"] for r in runs if r["setting"] == "off") if "off" in settings else None
    for setting in ("on", "every"):
        if off is not None and setting in settings:
            wall = statistics.median(r["wall_s"] for r in runs if r["setting"] == setting)
            print(f"  wall clock {setting} / off: {wall / off:.2f}x")
    if {"on", "off"} <= set(settings):
        for name in VARIANTS:
            null = {
                s: statistics.median(
                    r["null_us"][name] for r in runs if r["setting"] == s and r["null_us"][name]
                )
                for s in ("on", "off")
            }
            print(f"  {name}: DO 0 {null['off']:.1f} -> {null['on']:.1f} us with stages")
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
