"""Does a replay say why each query changed? Planted causes on one replay, and the replay's throughput.

Planted (issue 33, item 6): replay_resolution.py's dataset and 33 statement shapes (imported, not
copied), replayed on four instances of mariadb-10.11, each a lab instance (performance_schema ON:
the server's clock), the replay's default rounds, passes and extension, `b` as the A/A control:
  - "a" the baseline; "b" the same server again (the A/A control: every fingerprint should be "same");
  - "c" with `general_log=ON` and the slow log at `long_query_time=0` (log_output=FILE): every
    statement written to both logs, files in the instance's own datadir (the default file names; a
    path is refused as a startup option, targets/option_categories.py): a uniform per-statement cost,
    a variant spec's startup options. (The general log alone cost ~7-10 us a statement on the server's
    clock, below the A/A floor of a 24 us null statement on a loaded host; both logs are the larger
    plant the first results asked for.)
  - "d" with index k_k of table big dropped: a work change. A variant spec cannot drop an index (its
    instance statements are the allow-listed ALTER INSTANCE forms only, experiments/server_settings.py)
    and a replay has one dataset for every variant, so the bench drops it itself on d's kept datadir
    before the replay (ALTER TABLE big DROP INDEX IF EXISTS k_k by the lab's admin; the dataset record
    still names the dump, so the replay reuses that datadir): a team's server whose schema lost an
    index. The fingerprints it should change: those whose baseline plan reads big by k_k.
Per variant it prints today's reading of the same report (slower/faster counting the per-statement-cost-
only groups in, as the summary read before issue 33) beside this version's (slower/faster for a reason
of their own, cost-only apart, and by cause when the report has causes: `cause` per finding,
`slower_causes` per variant; "no causes in this version" otherwise), the per-statement cost line and
the A/A "same" share; then the goals, PASS/FAIL (exit 1 on a FAIL): the per-statement cost decided
slower on c and none of c's fingerprints slower or faster for a reason of its own (the planted cost is
one finding); every fingerprint reading big by k_k "plan changed" on d (and, with causes, a plan
change naming rows examined); A/A "same" >= 90 %.

Throughput: N generated fingerprints (the 32 aliased shapes again and again, each copy's alias renamed:
`--fingerprints 300`, a team's slow log) on a, c and d (three variants; no A/A control), the replay's
wall clock (the dump loads excluded: kept datadirs) and the fingerprints decided per minute (decided:
not "undecided" on any variant).

Run by hand (root, the lab installed), from the repository root:
    .venv/bin/python bench/replay_causes.py --quick   # ~2.5 min: 8 shapes, 6 rounds to 12; 10 generated
    .venv/bin/python bench/replay_causes.py [--fingerprints 300] [--rounds 20] [--skip planted|throughput]
    .venv/bin/python bench/replay_causes.py --skip throughput --timing-cpu off,auto   # unpinned, then pinned
--timing-cpu: UPGRADELAB_REPLAY_TIMING_CPU of the replays (execution/timing_cpu.py; default auto); a
comma list replays each in turn in this run, the planted figures and goals of each printed.
Servers: /var/lib/upgradelab/bench-servers-replay (as replay_resolution.py), ports 36021-36024.
"""

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "backend"))
import replay_resolution as base  # noqa: E402  (its import sets the server dir)
from power_checks import Goal, commit, load_average, report  # noqa: E402

from upgradelab.execution.schedule import plan  # noqa: E402
from upgradelab.measurement import (  # noqa: E402  # noqa: E402
    DumpDataset,
    Extension,
    ReplayVariant,
    VariantSettings,
    file_sha256,
    parse_source,
    replay_rounds,
)
from upgradelab.replay.compare import compare  # noqa: E402
from upgradelab.replay.document import report_document  # noqa: E402
from upgradelab.replay.extension import still_undecided  # noqa: E402
from upgradelab.replay.schemas import DEFAULT_PASSES, DEFAULT_ROUNDS, EXTENSION_FACTOR  # noqa: E402
from upgradelab.settings import get_settings  # noqa: E402
from upgradelab.targets.provisioners import LocalProvisioner  # noqa: E402

TARGET = base.TARGET
PORTS = {"a": 36021, "b": 36022, "c": 36023, "d": 36024}
ROLES = {
    "a": "baseline",
    "b": "A/A control (the baseline again)",
    "c": "{plant} (a uniform per-statement cost)",
    "d": "index k_k of big dropped (a work change)",
}
# c's plant (--cost): its startup options. both-logs: each statement's text to the general log and its
# text and counters to the slow log (not uniform: 4 of 33 fingerprints stayed slower net of `DO 0`'s
# cost on a quiet host); general-log: the example, the text only; general-log-table: the
# general log as rows of the CSV table mysql.general_log (a table opened and written per statement)
COST_PLANTS = {
    "both-logs": ["general_log=ON", "slow_query_log=ON", "long_query_time=0", "log_output=FILE"],
    "general-log": ["general_log=ON", "log_output=FILE"],
    "general-log-table": ["general_log=ON", "log_output=TABLE"],
}
COST_OPTIONS = list(COST_PLANTS["both-logs"])
SAVE_TO: list[str] = []  # --json DIR
TIMING_CPU: list[str] = []  # the --timing-cpu value of the replays running
DATABASE = "bench"
DROPPED = ("big", "k_k")
BIG = {
    "big",
    "b",
}  # big's names in queries()' plans: its own, and its alias in the joins
SLOWER = ("slower", "slower, plan changed", "slower (timed out)")
FASTER = ("faster", "faster, plan changed")
ALIAS = re.compile(r"\bAS (s\d+)\b")
# --quick: the mechanics in ~2-4 min (its goals are not expected to pass: too few rounds); the planted
# replay on 8 of the 33 shapes (queries() order: primary-key lookups of small, mid and big, big's four
# shapes that read it by k_k, SELECT 1 + 1)
QUICK_ROUNDS, QUICK_MAX_ROUNDS, QUICK_FINGERPRINTS = 6, 12, 10
QUICK_SHAPES = (1, 10, 19, 20, 21, 24, 31, 32)


def provisioner(name: str) -> LocalProvisioner:
    target = base.lab_target(TARGET)
    settings = {**target["settings"], "port": PORTS[name]}
    return LocalProvisioner(f"{TARGET}-causes-{name}", target["flavor"], settings, get_settings())


def variant(name: str) -> ReplayVariant:
    """`name`'s variant as a replay gets it: c's startup options in its settings too (the report's)."""
    options = COST_OPTIONS if name == "c" else []
    return ReplayVariant(name, provisioner(name), list(options), VariantSettings(options=list(options)))


def drop_index(one: LocalProvisioner) -> None:
    """d's work change on its kept datadir (module docstring), then the server stopped."""
    endpoint = one.start([], keep_data=True)
    connection = endpoint.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER TABLE {DATABASE}.{DROPPED[0]} DROP INDEX IF EXISTS {DROPPED[1]}")
    finally:
        connection.close()
        one.stop()


def letters(number: int) -> str:
    """`number` > 0 written in the letters a-z (base 26, a is 0): 1 -> "b", 26 -> "ba"."""
    out = ""
    while number:
        number, digit = divmod(number, 26)
        out = chr(ord("a") + digit) + out
    return out or "a"


def generated(count: int) -> str:
    """`count` statements of distinct fingerprints: queries()' aliased shapes, copy k > 0 with its
    alias sN renamed sNr<k in letters> (a fingerprint keeps identifiers but replaces the digits in
    them, pt-query-digest's: s1r1 and s1r2 would be one fingerprint, s?r?; s1rb and s1rc are two)."""
    shapes = [one for one in base.queries().split(";\n") if ALIAS.search(one)]
    out: list[str] = []
    copy = 0
    while len(out) < count:
        for shape in shapes[: count - len(out)]:
            out.append(ALIAS.sub(rf"AS \g<1>r{letters(copy)}", shape) if copy else shape)
        copy += 1
    return ";\n".join(out) + ";\n"


def replay(
    names: list[str],
    dataset: DumpDataset,
    sql: str,
    rounds: int,
    max_rounds: int,
    aa: str | None,
) -> dict[str, Any]:
    """One replay of `sql` on `names` (the first the baseline), extended to max_rounds as a replay is:
    {"document": the report's JSON, "wall_s", "load": (before, after) 1-minute load averages}."""
    statements = parse_source(sql).statements
    load = load_average()
    started = time.monotonic()
    extension = Extension(max_rounds, lambda done: still_undecided(statements, done, aa))
    shown: set[str] = set()

    def progress(name: str, phase: str) -> None:
        """One line per phase (a round's phase is stepped once per variant): the long runs show life."""
        if phase not in shown:
            shown.add(phase)
            print(f"  {time.monotonic() - started:6.0f} s  {phase}", flush=True)

    replays = replay_rounds(
        [variant(name) for name in names],
        dataset,
        statements,
        plan("interleaved", rounds, DEFAULT_PASSES, 7, len(names)),
        step=progress,
        extension=extension,
    )
    wall = time.monotonic() - started
    reports = compare(statements, replays, aa_control=aa)
    document = report_document(
        statements,
        replays,
        reports,
        aa_control=aa,
        planned_rounds=rounds,
        max_rounds=max_rounds,
    )
    found = {
        "document": document.model_dump(mode="json"),
        "wall_s": wall,
        "load": (load, load_average()),
    }
    if SAVE_TO:  # beside the report, each variant's timed runs: per statement, a value per pass
        found["timed"] = {
            one.name: {
                "statements": [statement.sql for statement in statements],
                "passes": one.passes,
                "clock": one.clock,
                "times": one.times,
                "client_times": one.client_times,
                "null_statement": one.null_statement,
            }
            for one in replays
        }
    if SAVE_TO:  # --json DIR: the whole report, every ratio and net verdict, for a reading afterwards
        cpu = f"-cpu-{TIMING_CPU[0]}" if TIMING_CPU else ""
        path = Path(SAVE_TO[0]) / f"replay-causes-{'-'.join(names)}-{len(statements)}{cpu}.json"
        path.write_text(json.dumps(found, indent=1))
        print(f"report saved: {path}")
    return found


def has_causes(document: dict[str, Any]) -> bool:
    """Whether the report carries causes (issue 33 items 4-5: VariantSummary.slower_causes)."""
    return any("slower_causes" in summary for summary in document.get("summary", []))


def variant_rows(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Per non-baseline variant: today's reading (slower/faster with the cost-only groups counted in),
    this version's (own reasons, cost-only apart, by cause when present), its per-statement cost line
    and its share of fingerprints "same"."""
    costs = {one["variant"]: one for one in document.get("per_statement_cost", [])}
    rows = []
    for summary in document["summary"]:
        name = summary["variant"]
        groups = [f["variants"][name]["group"] for f in document["fingerprints"] if name in f["variants"]]
        cost = costs.get(name)
        rows.append(
            {
                "variant": name,
                "today_slower": summary["slower"] + summary.get("slower_cost_only", 0),
                "today_faster": summary["faster"] + summary.get("faster_cost_only", 0),
                "slower": summary["slower"],
                "faster": summary["faster"],
                "slower_cost_only": summary.get("slower_cost_only", 0),
                "faster_cost_only": summary.get("faster_cost_only", 0),
                "slower_causes": summary.get("slower_causes"),
                "faster_causes": summary.get("faster_causes"),
                "same_share": groups.count("same") / len(groups) if groups else 0.0,
                "undecided": groups.count("undecided"),
                "cost_text": cost["text"] if cost else "no per-statement cost in this version",
                "cost_verdict": (cost.get("ratio") or {}).get("verdict") if cost else None,
            }
        )
    return rows


def changed(document: dict[str, Any], name: str) -> list[tuple[str, str | None, str]]:
    """(group, cause text or None, fingerprint) of every fingerprint changed on `name` (a slower,
    faster or plan-changed group)."""
    out: list[tuple[str, str | None, str]] = []
    for one in document["fingerprints"]:
        finding = one["variants"].get(name)
        if finding and finding["group"] not in ("same", "undecided", "refused"):
            cause = finding.get("cause")
            out.append((finding["group"], cause["text"] if cause else None, one["fingerprint"]))
    return out


def reads_dropped_index(fingerprint: dict[str, Any], baseline: str) -> bool:
    """Whether the baseline's plan of one of its statements reads big by k_k (the dropped index)."""
    return any(
        step.get("key") == DROPPED[1] and step.get("table") in BIG
        for statement in fingerprint["statements"]
        for step in statement["outcomes"][baseline].get("plan") or []
    )


def plan_diff(fingerprint: dict[str, Any], name: str) -> bool:
    """Whether a statement of the fingerprint has another plan on `name` (its group may name a
    break first: a result that changed with the plan)."""
    return any(d["plan"] for s in fingerprint["statements"] for d in s["diffs"] if d["variant"] == name)


def goals(document: dict[str, Any]) -> list[Goal]:
    """The planted replay's goals (module docstring); the causes goal only when the report has causes."""
    rows = {row["variant"]: row for row in variant_rows(document)}
    c, b = rows["c"], rows["b"]
    expected = [f for f in document["fingerprints"] if reads_dropped_index(f, document["baseline"])]
    on_d = [f["variants"]["d"] for f in expected]
    plan_changed = sum(plan_diff(f, "d") for f in expected)
    found = [
        Goal(
            "per-statement cost on c",
            f"{c['cost_verdict']}",
            "regression",
            c["cost_verdict"] == "regression",
        ),
        Goal(
            "c's fingerprints slower/faster for a reason of their own",
            f"{c['slower']}/{c['faster']} (cost-only {c['slower_cost_only']}/{c['faster_cost_only']}; "
            f"today's reading {c['today_slower']}/{c['today_faster']})",
            "0/0",
            c["slower"] + c["faster"] == 0,
        ),
        Goal(
            "d: fingerprints reading big by k_k, plan changed",
            f"{plan_changed} of {len(expected)}",
            "all, at least 1",
            plan_changed == len(expected) > 0,
        ),
        Goal('A/A "same"', f"{b['same_share']:.0%}", ">= 90 %", b["same_share"] >= 0.9),
    ]
    if has_causes(document):
        slower = [f for f in on_d if f["group"] in SLOWER]
        kinds = [(f.get("cause") or {}).get("kind") for f in slower]
        rows_examined = sum("rows examined" in (f.get("cause") or {}).get("text", "") for f in slower)
        found.append(
            Goal(
                "d: the slower of them caused by a plan change, naming rows examined",
                f"plan change {kinds.count('plan change')} of {len(slower)}, "
                f"rows examined in {rows_examined}",
                "all plan change, rows examined in >= 1",
                len(slower) > 0 and kinds.count("plan change") == len(slower) and rows_examined > 0,
            )
        )
    return found


def print_planted(run: dict[str, Any]) -> None:
    document = run["document"]
    print(f"\nplanted: {len(document['fingerprints'])} fingerprints, wall {run['wall_s']:.0f} s, "
          f"load average {run['load'][0]} -> {run['load'][1]}")  # fmt: skip
    print(f"  timing: {document.get('timing')}")
    if not has_causes(document):
        print("  causes: no causes in this version")
    print(
        f"  {'variant':<48} {'today: slower/faster':>21}  {'now: slower/faster':>18}  "
        "cost-only  same  by cause"
    )
    for row in variant_rows(document):
        causes = (
            f"slower {row['slower_causes']}, faster {row['faster_causes']}"
            if row["slower_causes"] is not None
            else "no causes in this version"
        )
        print(
            f"  {row['variant'] + ': ' + ROLES[row['variant']].format(plant=' '.join(COST_OPTIONS)):<48} "
            f"{row['today_slower']:>14}/{row['today_faster']:<6} {row['slower']:>11}/{row['faster']:<6} "
            f"{row['slower_cost_only']:>5}/{row['faster_cost_only']:<4} {row['same_share']:>4.0%}  {causes}"
        )
        print(f"      {row['cost_text']}")
        for group, cause, fingerprint in changed(document, row["variant"]):
            print(f"      {group:<24} {fingerprint[:56]:<56}  {cause or '(no cause in this version)'}")


def planted(dataset: DumpDataset, rounds: int, max_rounds: int, quick: bool) -> bool:
    """The planted replay: its figures and goals; True when every goal was met."""
    drop_index(provisioner("d"))
    shapes = [one for one in base.queries().split(";\n") if one.strip()]
    chosen = [shapes[i] for i in QUICK_SHAPES] if quick else shapes
    run = replay(list(PORTS), dataset, ";\n".join(chosen) + ";\n", rounds, max_rounds, "b")
    print_planted(run)
    return report("replay-causes", goals(run["document"]))


def throughput(dataset: DumpDataset, count: int, rounds: int, max_rounds: int) -> None:
    sql = generated(count)
    ids = {one.fingerprint_id for one in parse_source(sql).statements}
    assert len(ids) == count, f"{len(ids)} distinct fingerprints of {count} generated"
    run = replay(["a", "c", "d"], dataset, sql, rounds, max_rounds, None)
    document = run["document"]
    decided = [
        f for f in document["fingerprints"] if all(v["group"] != "undecided" for v in f["variants"].values())
    ]
    spent = [f.get("rounds") or 0 for f in document["fingerprints"]]
    minutes = run["wall_s"] / 60
    print(
        f"\nthroughput: {count} fingerprints x 3 variants (a, c, d), {rounds} rounds x {DEFAULT_PASSES} "
        f"passes to {max_rounds}: wall {run['wall_s']:.0f} s, decided {len(decided)} of {count} "
        f"({len(decided) / minutes:.1f} fingerprints decided per minute, {count / minutes:.1f} replayed "
        f"per minute); rounds median {statistics.median(spent):.0f}, max {max(spent)}, "
        f"{sum(one > rounds for one in spent)} extended; load average {run['load'][0]} -> {run['load'][1]}"
    )
    for row in variant_rows(document):
        print(
            f"  {row['variant']}: today slower/faster {row['today_slower']}/{row['today_faster']}, now "
            f"{row['slower']}/{row['faster']} + cost-only "
            f"{row['slower_cost_only']}/{row['faster_cost_only']}, "
            f"same {row['same_share']:.0%}, undecided {row['undecided']}; {row['cost_text']}"
        )


def loaded(scratch: Path) -> DumpDataset:
    """The bench's dump written in `scratch` and loaded on every instance (or found kept there) by a
    replay of one round of one statement."""
    dump = scratch / "bench.sql"
    base.write_dump(dump)
    dataset = DumpDataset(dump, file_sha256(dump), DATABASE)
    one = parse_source("SELECT 1;").statements
    replay_rounds([variant(name) for name in PORTS], dataset, one, plan("interleaved", 1, 1, 1, len(PORTS)))
    return dataset


def check() -> bool:
    """power_checks.py replay-causes: the planted replay at the replay's defaults; True: every goal met."""
    with tempfile.TemporaryDirectory() as scratch:
        return planted(loaded(Path(scratch)), DEFAULT_ROUNDS, EXTENSION_FACTOR * DEFAULT_ROUNDS, False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="8 shapes, 6 rounds to 12; 10 generated fingerprints",
    )
    parser.add_argument("--fingerprints", type=int, default=300, help="the throughput replay's")
    parser.add_argument("--skip", choices=["planted", "throughput"], default=None)
    parser.add_argument("--rounds", type=int, default=None, help="planned rounds (default: a replay's)")
    parser.add_argument("--cost", choices=list(COST_PLANTS), default="both-logs", help="c's plant")
    parser.add_argument("--json", metavar="DIR", default=None, help="save each replay's report there")
    parser.add_argument(
        "--timing-cpu",
        default="auto",
        help="UPGRADELAB_REPLAY_TIMING_CPU for the replays; a comma list runs each in turn (off,auto)",
    )
    args = parser.parse_args()
    COST_OPTIONS[:] = COST_PLANTS[args.cost]
    SAVE_TO[:] = [args.json] if args.json else []
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)
    max_rounds = QUICK_MAX_ROUNDS if args.quick and not args.rounds else EXTENSION_FACTOR * rounds
    count = QUICK_FINGERPRINTS if args.quick else args.fingerprints
    print(
        f"replay causes, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit()}, "
        f"{'quick' if args.quick else 'full'}: {rounds} rounds x {DEFAULT_PASSES} passes to {max_rounds}, "
        f"4 instances of {TARGET}, c: {' '.join(COST_OPTIONS)}, load average {load_average()}"
    )
    passed = True
    with tempfile.TemporaryDirectory() as scratch:
        dataset = loaded(Path(scratch))
        for value in args.timing_cpu.split(","):  # one after the other in this run: side by side
            os.environ["UPGRADELAB_REPLAY_TIMING_CPU"] = value
            get_settings.cache_clear()
            TIMING_CPU[:] = [value]
            print(f"\n== UPGRADELAB_REPLAY_TIMING_CPU={value}", flush=True)
            if args.skip != "planted":
                passed = planted(dataset, rounds, max_rounds, args.quick) and passed
            if args.skip != "throughput":
                throughput(dataset, count, rounds, max_rounds)
            for name in PORTS:  # a replay keeps its instances as spares: the next one drops d's index
                provisioner(name).stop_all()
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
