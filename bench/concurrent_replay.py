"""Does a concurrent replay find what concurrency changes, and what does a trial cost? Workloads the
bench makes, each with a known answer, replayed with the measurement library's trials
(prepare_trials, run_trial) and decided as the concurrent replay kind decides (decide.py):

  - "read-then-write": PAIRS pairs of sessions, each pair on its own row: T1 BEGIN, SELECT the row;
    T2 UPDATE it and COMMIT; T1 UPDATE it, COMMIT (a second between steps, speed 1). On MariaDB
    11.8 (innodb_snapshot_isolation ON) T1's UPDATE fails with 1020; on 10.11 it commits. Expected:
    error 1020 "breaks" on 11.8, the table "breaks" (other data at the end), nothing on the A/A.
  - "hot-row": SESSIONS sessions updating one row in read-then-write transactions, back to back
    (speed 0), on 10.11 against 10.11 started with transaction-isolation=SERIALIZABLE (the planted
    setting: the reads take shared locks, the writers wait and deadlock). Expected: error 1213 and
    `hot` "breaks", nothing on the A/A; the committed increments (rows changed/s) fall by about two
    thirds, but the throughput verdicts do not show it: statements/s counts the deadlocked
    statements, which fail fast, and transactions/s the COMMITs after them, which commit nothing
    (bench/README.md, fourth run).
  - "hot-row-binlog": the hot-row workload (speed 0) on 10.11 against 10.11 with the binary log on
    and synced at every commit (the planted settings `log-bin`, `sync_binlog=1`: MySQL 8.0's
    defaults, off in MariaDB's). With the binary log a commit is two-phase: InnoDB's prepare
    flushes its redo log (innodb_flush_log_at_trx_commit=1, the default), the binary log is
    written and synced, and only then InnoDB commits and releases the row's lock; two fsyncs inside
    every transaction's hold on the one row, which the other sessions queue behind (group commit
    cannot batch them). Expected: throughput (statements/s and transactions/s) "slower" with its
    cause (lock waits); no error and no table break on either (every increment commits on both:
    the committed work falls, not an artefact of failures returning fast); nothing on the A/A.
  - "aa": the hot-row workload on 10.11 against itself, --aa-runs replays of --rounds rounds: the
    share of A/A throughput verdicts "same" (target: at least 90 %) and the false slower/faster.
  - "cost": one trial of the hot-row workload at 8, 16 and 32 sessions: copy, start, trial and
    checksum seconds, and the copy's seconds per GB of datadir.
  - "memory": one trial of 8 sessions reading hot's row --memory-results times in all, speed 0,
    bounded at the kind's MAX_RESULTS: the Python memory its statement results and summary took
    (tracemalloc's peak over run_trial, the parsed sessions excluded) and per result.

--transactions: each session's transactions (hot-row, hot-row-binlog and aa): 50 made 0.2 s
trials; a throughput verdict needs thousands in all.

Run by hand (root, the lab installed), from the repository root:
    .venv/bin/python bench/concurrent_replay.py [--cases read-then-write hot-row hot-row-binlog aa cost]
        [--rounds 5] [--aa-runs 10] [--transactions 50] [--memory-results 500000]
Servers use their own directory (/var/lib/upgradelab/bench-servers-concurrent), state directory (a
temporary one) and ports (36021-36024). Record the results in bench/README.md with `uptime` at the time.
"""

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("UPGRADELAB_SERVER_DIR", "/var/lib/upgradelab/bench-servers-concurrent")
# its own state directory (admin passwords, dataset records): never the product's
os.environ.setdefault("UPGRADELAB_STATE_DIR", tempfile.mkdtemp(prefix="upgradelab-bench-concurrent-"))
sys.path.insert(0, str(REPO / "backend"))

from replay_resolution import lab_target  # noqa: E402

from upgradelab.concurrent_replay.decide import decide  # noqa: E402
from upgradelab.concurrent_replay.report import ConcurrentReport, TrialRecord  # noqa: E402
from upgradelab.concurrent_replay.runner import MAX_RESULTS  # noqa: E402
from upgradelab.execution.schedule import plan  # noqa: E402
from upgradelab.measurement import (  # noqa: E402
    DriverBounds,
    DumpDataset,
    Session,
    TrialTarget,
    file_sha256,
    log_sessions,
    prepare_trials,
    restore_datadir,
    run_trial,
    text_stream,
)
from upgradelab.settings import get_settings  # noqa: E402
from upgradelab.targets.provisioners import LocalProvisioner  # noqa: E402

PORTS = {"base": 36021, "other": 36022, "aa": 36023, "planted": 36024}
PAIRS = 8
HEADER = "Time\t\t    Id Command\tArgument\n"


def write_dump(path: Path, rows: int = 1_000) -> None:
    """The bench's dump: c (id, v) with `rows` rows and hot (id, v) with one."""
    values = ",".join(f"({i},0)" for i in range(1, rows + 1))
    path.write_text(
        "CREATE TABLE c (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;\n"
        f"INSERT INTO c VALUES {values};\n"
        "CREATE TABLE hot (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;\n"
        "INSERT INTO hot VALUES (1, 0);\n"
    )


def _line(second: int | None, thread: int, command: str, argument: str) -> str:
    when = f"261206  8:00:{second:02d}" if second is not None else "\t"
    return f"{when}\t{thread:>6} {command}\t{argument}\n"


def read_then_write_log(pairs: int = PAIRS) -> str:
    """PAIRS pairs of sessions, pair k on row k (module docstring), a second between steps."""
    steps: dict[int, list[str]] = {0: [], 1: [], 2: []}
    for k in range(1, pairs + 1):
        t1, t2 = 100 + 2 * k, 101 + 2 * k
        steps[0] += [
            _line(None, t1, "Connect", "app@localhost on bench using TCP/IP"),
            _line(None, t2, "Connect", "app@localhost on bench using TCP/IP"),
            _line(None, t1, "Query", "BEGIN"),
            _line(None, t1, "Query", f"SELECT v FROM c WHERE id = {k}"),
        ]
        steps[1] += [
            _line(None, t2, "Query", "BEGIN"),
            _line(None, t2, "Query", f"UPDATE c SET v = v + 1 WHERE id = {k}"),
            _line(None, t2, "Query", "COMMIT"),
            _line(None, t2, "Quit", ""),
        ]
        steps[2] += [
            _line(None, t1, "Query", f"UPDATE c SET v = v + 1 WHERE id = {k}"),
            _line(None, t1, "Query", "COMMIT"),
            _line(None, t1, "Quit", ""),
        ]
    out = HEADER
    for second, lines in steps.items():
        out += f"261206  8:00:{second:02d}\t{lines[0][2:]}" + "".join(lines[1:])
    return out


def transactions_log(sessions: int, transactions: int, body: Callable[[int], list[str]], first: int) -> str:
    """`sessions` sessions (threads `first`, `first` + 1, ...), session n running `transactions`
    times the statements `body(n)`, back to back (one time stamp: speed 0 runs them as fast as it
    can)."""
    lines = []
    for n in range(sessions):
        thread = first + n
        lines.append(_line(None, thread, "Connect", "app@localhost on bench using TCP/IP"))
        for _ in range(transactions):
            lines += [_line(None, thread, "Query", sql) for sql in body(n)]
        lines.append(_line(None, thread, "Quit", ""))
    return HEADER + f"261206  8:00:00\t{lines[0][2:]}" + "".join(lines[1:])


def hot_row_log(sessions: int, transactions: int = 50) -> str:
    """`sessions` sessions, each `transactions` read-then-write transactions on hot's one row."""
    read_then_write = [
        "BEGIN",
        "SELECT v FROM hot WHERE id = 1",
        "UPDATE hot SET v = v + 1 WHERE id = 1",
        "COMMIT",
    ]
    return transactions_log(sessions, transactions, lambda n: read_then_write, 1000)


def reads_log(sessions: int, statements: int) -> str:
    """`sessions` sessions reading hot's row, `statements` reads in all (autocommit)."""
    return transactions_log(
        sessions, statements // sessions, lambda n: ["SELECT v FROM hot WHERE id = 1"], 2000
    )


def target_row(name: str) -> dict[str, Any]:
    """The seeded lab target's row: MariaDB 11.8 from migration 0008 (its seed), the others from 0002
    (replay_resolution.py lab_target)."""
    if name != "mariadb-11.8":
        return lab_target(name)
    path = REPO / "backend/upgradelab/migrations/versions/0008_datasets_replay.py"
    spec = importlib.util.spec_from_file_location("datasets_replay", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.MARIADB_11_8)


def instance(name: str, target: str) -> LocalProvisioner:
    """A lab instance of `target` on the bench's own port for `name`."""
    row = target_row(target)
    settings = {**row["settings"], "port": PORTS[name]}
    return LocalProvisioner(f"{target}-concurrent-{name}", row["flavor"], settings, get_settings())


def trials(
    targets: dict[str, TrialTarget], sessions: list[Session], rounds: int, speed: float, seed: int
) -> list[TrialRecord]:
    """Every variant's trials over `rounds` interleaved rounds (the order from `seed`)."""
    names = list(targets)
    records = []
    for number, order in enumerate(plan("interleaved", rounds, 1, seed, len(names)).order, start=1):
        for position, index in enumerate(order):
            measure = run_trial(targets[names[index]], sessions, speed=speed, timeout_s=30)
            records.append(
                TrialRecord(
                    variant=names[index],
                    round=number,
                    position=position,
                    copy_s=measure.datadir_copy.seconds,
                    copy_bytes=measure.datadir_copy.bytes,
                    start_s=measure.start_s,
                    summary=measure.summary,
                    locks=measure.locks,
                    checksums=measure.checksums,
                )
            )
    return records


def show(title: str, report: ConcurrentReport) -> None:
    """The report's groups and findings, printed."""
    print(f"\n== {title}")
    for group in report.groups:
        print(f"  {group.model_dump(exclude={'copy_s', 'wall_s'})}")
    for error in report.errors:
        print(f"  error {error.variant} {error.code}: {error.group}: {error.reason}")
    for table in report.tables:
        print(f"  table {table.variant} {table.table}: {table.group}: {table.reason}")
    for one in report.throughput:
        causes = f" causes: {one.causes}" if one.causes else ""
        print(f"  {one.metric} {one.variant}: {one.group}: {one.reason}{causes}")
    for one in report.fingerprints:
        if one.group in ("slower", "faster"):
            print(f"  p95 {one.variant} `{one.fingerprint}`: {one.group}: {one.reason}")


def rates(found: list[TrialRecord]) -> None:
    """Per variant, the medians over its trials of what the app got done: transactions committed
    (COMMITs without error) and statements per second, rows changed per second (the increments its
    UPDATEs made), failed statements and seconds of sessions a trial."""
    for variant in dict.fromkeys(t.variant for t in found):
        mine = [t.summary for t in found if t.variant == variant]
        tps = statistics.median(s.transactions_per_s for s in mine)
        sps = statistics.median(s.statements_per_s for s in mine)
        changed = statistics.median(s.rows_changed / s.wall_s for s in mine if s.wall_s > 0)
        failed = statistics.median(sum(e.count for e in s.errors) for s in mine)
        walls = [s.wall_s for s in mine]
        print(
            f"  {variant}: {tps:,.0f} transactions/s, {sps:,.0f} statements/s, "
            f"{changed:,.0f} rows changed/s, {failed:g} failed statements a trial (medians); "
            f"sessions {min(walls):.2f}-{max(walls):.2f} s a trial"
        )


def prepared(
    names: dict[str, str], dump: DumpDataset, options: dict[str, list[str]] | None = None
) -> dict[str, TrialTarget]:
    """Each bench variant's instance with the dataset kept: `names` maps a variant to its lab
    target, `options` a variant to its server options (none given: SERIALIZABLE on "planted", the
    hot-row case's; a variant it does not name has none)."""
    options = {"planted": ["transaction-isolation=SERIALIZABLE"]} if options is None else options
    return {
        name: prepare_trials(instance(name, target), options.get(name, []), dump)
        for name, target in names.items()
    }


def with_targets(
    names: dict[str, str],
    dump: DumpDataset,
    body: Callable[[dict[str, TrialTarget]], None],
    options: dict[str, list[str]] | None = None,
) -> None:
    """`body` on the prepared variants (`options` as `prepared` takes them); every kept datadir put
    back and every server stopped after."""
    targets = prepared(names, dump, options)
    try:
        body(targets)
    finally:
        for target in targets.values():
            restore_datadir(target)
            target.provisioner.discard()


def main() -> None:
    """The cases asked (module docstring), each printed as it ends."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cases", nargs="+", default=["read-then-write", "hot-row", "aa", "cost"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--aa-runs", type=int, default=10)
    parser.add_argument("--transactions", type=int, default=50)
    parser.add_argument("--memory-results", type=int, default=MAX_RESULTS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "bench.sql"
        write_dump(path)
        dump = DumpDataset(path, file_sha256(path), "bench")
        if "read-then-write" in args.cases:
            log = log_sessions(text_stream(read_then_write_log()), "general")

            def read_then_write(targets: dict[str, TrialTarget]) -> None:
                found = trials(targets, log.sessions, args.rounds, 1.0, 50)
                show("read-then-write (10.11, 11.8, A/A 10.11; speed 1)", decide(list(targets), found, "aa"))

            with_targets(
                {"base": "mariadb-10.11", "other": "mariadb-11.8", "aa": "mariadb-10.11"},
                dump,
                read_then_write,
            )
        hot = log_sessions(text_stream(hot_row_log(8, args.transactions)), "general")
        if "hot-row" in args.cases:

            def hot_row(targets: dict[str, TrialTarget]) -> None:
                found = trials(targets, hot.sessions, args.rounds, 0.0, 51)
                rates(found)
                show(
                    f"hot-row, 8 sessions x {args.transactions} (10.11, SERIALIZABLE, A/A; speed 0)",
                    decide(list(targets), found, "aa"),
                )

            with_targets(
                {"base": "mariadb-10.11", "planted": "mariadb-10.11", "aa": "mariadb-10.11"}, dump, hot_row
            )
        if "hot-row-binlog" in args.cases:
            hot_row_binlog(dump, hot.sessions, args.rounds, args.transactions)
        if "aa" in args.cases:

            def aa(targets: dict[str, TrialTarget]) -> None:
                groups = []
                for run in range(args.aa_runs):
                    found = trials(targets, hot.sessions, args.rounds, 0.0, 100 + run)
                    report = decide(["base", "aa"], found, "aa")
                    groups.append(report.throughput[0].group)
                    verdict = report.throughput[0].verdict
                    said = f"{verdict.ratio:.3f} [{verdict.low:.3f}, {verdict.high:.3f}]" if verdict else "-"
                    walls = [t.summary.wall_s for t in found]
                    print(
                        f"  run {run + 1}: aa/base statements/s {said}: {groups[-1]}; sessions "
                        f"{min(walls):.1f}-{max(walls):.1f} s a trial; aa first in "
                        f"{sum(t.variant == 'aa' and t.position == 0 for t in found)} of {args.rounds} rounds"
                    )
                same = groups.count("same")
                false = sum(g in ("slower", "faster") for g in groups)
                share = same / len(groups)
                print(
                    f"\n== A/A hot-row, 8 sessions x {args.transactions}: "
                    f"{same} of {len(groups)} same ({share:.0%}), {false} false"
                )

            with_targets({"base": "mariadb-10.11", "aa": "mariadb-10.11"}, dump, aa)
        if "cost" in args.cases:

            def cost(targets: dict[str, TrialTarget]) -> None:
                print("\n== cost of one trial (hot-row, speed 0)")
                for count in (8, 16, 32):
                    sessions = log_sessions(text_stream(hot_row_log(count, 20)), "general").sessions
                    started = time.perf_counter()
                    measure = run_trial(targets["base"], sessions, speed=0, timeout_s=30)
                    whole = time.perf_counter() - started
                    copy = measure.datadir_copy
                    per_gb = copy.seconds / (copy.bytes / 1e9)
                    p95 = statistics.median([f.p95_s or 0 for f in measure.summary.latencies]) * 1000
                    print(
                        f"  {count} sessions: whole {whole:.2f} s = copy {copy.seconds:.2f} s "
                        f"({copy.bytes / 1e6:.0f} MB, {per_gb:.2f} s/GB, {copy.filesystem}) "
                        f"+ start {measure.start_s:.2f} s + trial {measure.summary.wall_s:.2f} s "
                        f"+ checksums, stop; {measure.summary.transactions_per_s:.0f} tps, p95 {p95:.1f} ms"
                    )

            with_targets({"base": "mariadb-10.11"}, dump, cost)

        if "memory" in args.cases:
            memory(dump, args.memory_results)


BINLOG = ["log-bin", "sync_binlog=1"]
BINLOG_KNOWN = (
    f"planted ({', '.join(BINLOG)}): statements/s and transactions/s slower, cause lock waits; "
    "no error and no table break on either; the A/A same"
)


def as_known(report: ConcurrentReport) -> list[str]:
    """The hot-row-binlog case's known answer (BINLOG_KNOWN) checked against `report`: one line per
    claim, "as known" or "NOT as known", with what was found."""
    planted = [one for one in report.throughput if one.variant == "planted"]
    control = [one for one in report.throughput if one.variant == "aa"]
    breaks = [f"{one.variant} {one.code}" for one in report.errors if one.group == "breaks"]
    breaks += [f"{one.variant} {one.table}" for one in report.tables if one.group == "breaks"]
    claims = [
        (
            "planted slower",
            [f"{one.metric} {one.group}" for one in planted],
            all(one.group == "slower" for one in planted),
        ),
        (
            "cause lock waits",
            list(dict.fromkeys(cause for one in planted for cause in one.causes)),
            all(any(c.startswith("lock waits") for c in one.causes) for one in planted),
        ),
        ("no break", breaks, not breaks),
        (
            "A/A same",
            [f"{one.metric} {one.group}" for one in control],
            all(one.group == "same" for one in control),
        ),
    ]
    return [
        f"{name}: {'as known' if held else 'NOT as known'} ({'; '.join(found) or 'none'})"
        for name, found, held in claims
    ]


def hot_row_binlog(dump: DumpDataset, sessions: list[Session], rounds: int, transactions: int) -> None:
    """The "hot-row-binlog" case (module docstring): the hot-row `sessions` on 10.11 (base and its
    A/A) against 10.11 with BINLOG (planted), interleaved over `rounds` rounds from seed 53."""

    def run(targets: dict[str, TrialTarget]) -> None:
        found = trials(targets, sessions, rounds, 0.0, 53)
        print(
            f"\n== hot-row-binlog, 8 sessions x {transactions} (10.11, with {' '.join(BINLOG)}, A/A; speed 0)"
        )
        print(f"  known answer: {BINLOG_KNOWN}")
        rates(found)
        report = decide(list(targets), found, "aa")
        show("hot-row-binlog: found", report)
        for line in as_known(report):
            print(f"  {line}")

    with_targets(
        {"base": "mariadb-10.11", "planted": "mariadb-10.11", "aa": "mariadb-10.11"},
        dump,
        run,
        {"planted": BINLOG},
    )


def memory(dump: DumpDataset, results: int) -> None:
    """The "memory" case (module docstring): tracemalloc's peak over one run_trial."""
    sessions = log_sessions(text_stream(reads_log(8, results)), "general").sessions

    def one(targets: dict[str, TrialTarget]) -> None:
        bounds = DriverBounds(max_results=MAX_RESULTS)
        tracemalloc.start()
        try:
            measure = run_trial(targets["base"], sessions, speed=0, timeout_s=30, bounds=bounds)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        ran = measure.summary.statements
        print(
            f"\n== memory of one trial: {ran:,} statement results (stopped: {measure.summary.stopped}), "
            f"peak {peak / 1e6:.0f} MB traced, {peak / max(ran, 1):.0f} bytes a result, "
            f"{measure.summary.wall_s:.1f} s of sessions"
        )

    with_targets({"base": "mariadb-10.11"}, dump, one)


if __name__ == "__main__":
    main()
