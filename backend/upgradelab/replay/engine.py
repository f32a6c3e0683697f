"""Replay on every variant in interleaved rounds, as the run loop runs its blocks (execution/schedule.py):

1. open: one server instance per variant, all started at once (one thread each), the dataset loaded
   on each (or reused when the kept datadir already holds it), every table of the dataset analysed
   (ANALYZE TABLE: persistent statistics, so a plan is the version's and not the moment's: right
   after a load the estimates may say "1 row" for thousands), then every instance frozen;
2. outcomes: per variant in turn (thawed, then frozen again), each statement's outcome once (error,
   warnings, rows, checksums, plan; outcomes.py), then one untimed warm-up pass over the statements
   (caches and buffer pool as the rounds will find them);
3. rounds: the schedule's rounds; in each, every sampled statement in source order is timed
   `passes` times on every variant, the variants taking turns pass by pass (turns.py `round_turns`, "pass":
   the round's shuffled order, rotated at each turn), each thawed for its turn and frozen after it;
   a statement is repeated until enough time was measured (timing.py: the server's clock where every
   variant has performance_schema, the client's otherwise) and the pass's value is the median of its
   runs; the round's value is the median of its passes;
4. extension (`Extension`, replay/extension.py): while some fingerprints are still undecided and
   the replay's max_rounds allows, EXTENSION_STEP more rounds (execution/schedule.py `extensions`,
   the runs' auto-extension) of the still-undecided statements only, laid out as in step 3; decided
   statements are not timed again.

Every statement is bounded (`timeout_s`, targets/statement_timeout.py) and, unless the replay allows
writes, read-only on the server (outcomes.py `Statements`). A statement that timed out or was
refused in step 2 is not timed in step 3 (its timed runs are None); one that times out in a timed
run counts math.inf there and is not run again on that variant: a statement that never ends costs
one timeout per variant, not one per pass.

An `Interrupt` stops the replay from another thread (a cancel): the statement running is killed at
once (KILL QUERY), no other starts, and replay_rounds raises ReplayCancelled with what was measured:
the outcomes of the statements captured on every variant and the rounds every variant completed.

Why the variants take turns pass by pass and not block by block (each variant all the statements,
then the next, "block"): a ratio compares two variants' times of one statement, and what drifts on a
busy machine between the two (other processes, frequency, caches) is noise in it. Block by block the
two were ~5 s apart; pass by pass, one pass (~20 ms). Measured side by side (bench/replay_resolution.py,
A/A, 20 rounds x 2 passes, one run, quiet host): the median smallest detectable change was 10.7 % by
block, 10.0 % by statement ("statement": each statement's passes on one variant, then the next) and
8.5 % by pass, in the same wall clock; on a loaded host 10 x 5 by block gave 37 %, by statement 18 %.
The switches cost little (a SIGSTOP/SIGCONT pair; a docker pause each on docker targets).
Every instance is stopped at the end, on every exit path (execution/instances.py `started`).
"""

import threading
import time
from collections.abc import Callable, Collection, Iterator
from contextlib import suppress
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import groupby

import pymysql

from upgradelab.datasets.accounts import definer_access, replay_account
from upgradelab.datasets.loader import LoadResult, TableStats, table_stats
from upgradelab.execution.cancel import stop_servers
from upgradelab.execution.instances import Instance, started
from upgradelab.execution.schedule import Budget, Schedule, extensions
from upgradelab.replay.dataset_load import DumpDataset, ensure_dataset
from upgradelab.replay.outcomes import Outcome, Statements, capture
from upgradelab.replay.settle import analyze_tables
from upgradelab.replay.sources import SourceStatement
from upgradelab.replay.timing import Clock, ServerClock, pass_value, server_clock, timed_runs
from upgradelab.replay.turns import Interleave, round_turns
from upgradelab.targets.provisioners import Provisioner
from upgradelab.targets.provisioners.base import (
    ADMIN_READ_TIMEOUT_S,
    STATEMENT_READ_MARGIN_S,
    ServerConnection,
)
from upgradelab.targets.statement_timeout import DEFAULT_TIMEOUT_S, StatementBound, StatementInterrupted
from upgradelab.workloads.base import DatasetProgress, scalar


@dataclass
class VariantReplay:
    """One variant's replay: server version, whether the dataset was loaded (LoadResult) or reused
    (None), its tables, one Outcome per statement, and per statement the seconds of each of its timed
    runs in execution order (None where it errored or was not run, math.inf where it timed out):
    `passes` per round, so times[statement][k] is from round k // passes + 1; each the median of
    the pass's repeated runs (timing.py), `repeats[statement]` the runs of its last pass.
    flavor: the server's (mysql, mariadb); statistics_at: when ANALYZE TABLE ran on its `analyzed`
    tables (UTC); clock: which clock timed it ("server": performance_schema TIMER_WAIT, "client")."""

    name: str
    version: str
    load: LoadResult | None
    tables: list[TableStats]
    outcomes: list[Outcome] = field(default_factory=list)
    times: list[list[float | None]] = field(default_factory=list)
    passes: int = 1
    flavor: str = ""
    statistics_at: datetime | None = None
    analyzed: int = 0
    clock: Clock = "client"
    repeats: list[int] = field(default_factory=list)


def _use(connection: ServerConnection, database: str) -> Outcome | None:
    """Make `database` the default; the server's refusal as the statement's outcome (a log taken on
    another server may name a database the dump does not hold)."""
    try:
        connection.select_db(database)
    except pymysql.MySQLError as error:
        return Outcome(int(error.args[0]), f"default database {database!r}: {error.args[1]}")
    return None


@dataclass(frozen=True)
class ReplayVariant:
    """One variant to replay on: its name, its own server instance (a provisioner slot) and the
    option-file lines it starts with."""

    name: str
    provisioner: Provisioner
    options: list[str]


@dataclass
class _Open:
    variant: ReplayVariant
    connection: ServerConnection
    replay: VariantReplay
    clock: ServerClock | None = None  # its admin connection is closed with the replay's
    missing: dict[int, Outcome] = field(default_factory=dict)  # statements whose database is absent


def _open(
    variant: ReplayVariant,
    dataset: DumpDataset,
    report: Callable[[DatasetProgress], None],
    *,
    writes: bool,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cancelled: Callable[[], bool] = lambda: False,
) -> _Open:
    """The variant's server with the dataset, and a connection as the replay's own account: the
    reader (SELECT, SHOW VIEW, EXECUTE on the dataset's databases), or with `writes` the writer;
    the dump's definer cut to the same access first, so a routine cannot write on its behalf. The
    account's reads wait the statement bound `timeout_s` plus STATEMENT_READ_MARGIN_S (the bound ends
    a slow statement, not the socket); the clock's admin connection ADMIN_READ_TIMEOUT_S. The dump's
    load stops when `cancelled()` answers True (datasets/loader.py)."""
    loaded = ensure_dataset(variant.provisioner, variant.options, dataset, report, cancelled)
    admin = loaded.admin
    try:
        version = str(scalar(admin, "SELECT VERSION()"))
        tables = [one for database in loaded.databases for one in table_stats(admin, database)]
        analyzed_at = analyze_tables(admin, tables)
        definer_access(admin, loaded.databases, writes=writes)
        user, password = replay_account(admin, loaded.databases, writes=writes)
    finally:
        admin.close()
    account = replace(loaded.endpoint, user=user, password=password)
    connection = account.connect(dataset.database, read_timeout_s=timeout_s + STATEMENT_READ_MARGIN_S)
    replay = VariantReplay(variant.name, version, loaded.load, tables)
    replay.flavor, replay.statistics_at, replay.analyzed = (
        variant.provisioner.flavor,
        analyzed_at,
        len(tables),
    )
    clock_admin = loaded.endpoint.connect(read_timeout_s=ADMIN_READ_TIMEOUT_S)
    clock = server_clock(clock_admin, connection)
    if clock is None:
        clock_admin.close()
    return _Open(variant, connection, replay, clock)


class Interrupt:
    """Stops a replay from another thread: set() interrupts every variant's statement bound (the
    statement running is killed, none other starts); bounds attached later start interrupted. While
    a variant has no bound yet (its server starting, its datadir initialized, the dump loading, its
    tables analysed), set() also stops the servers of the replay's provisioners (`servers`, given by
    replay_rounds) through their own handles: a start that has not answered yet has no pid file for
    the runner's stop_targets to find."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bounds: list[StatementBound] = []
        self._set = False
        self.servers: list[Provisioner] = []

    @property
    def is_set(self) -> bool:
        return self._set

    @property
    def attached(self) -> int:
        """Bounds attached so far: one per variant whose server started and holds the dataset."""
        return len(self._bounds)

    def attach(self, bound: StatementBound) -> None:
        with self._lock:
            self._bounds.append(bound)
            if self._set:
                bound.interrupt()

    def set(self) -> None:
        """Interrupt now; from any thread, idempotent (a server that started since the last call is
        stopped by the next)."""
        with self._lock:
            self._set = True
            for bound in self._bounds:
                bound.interrupt()
            starting = len(self._bounds) < len(self.servers)
        if starting:
            stop_servers("replay", self.servers)


class ReplayCancelled(Exception):
    """The replay was interrupted. `replays`: what every variant measured, cut to what compares:
    the outcomes of the first `captured` statements (captured on every variant) and the timed runs
    of the `rounds` rounds every variant completed."""

    def __init__(self, replays: list[VariantReplay], captured: int, rounds: int) -> None:
        super().__init__(f"interrupted after {captured} statements captured and {rounds} rounds")
        self.replays, self.captured, self.rounds = replays, captured, rounds


@dataclass
class _Runner:
    """A variant's user statements (bounded, read-only unless writes are allowed) and the ones its
    timed passes leave out (database absent, refused, timed out)."""

    statements: Statements
    untimed: set[int] = field(default_factory=set)


def _runner(one: _Open, timeout_s: float, read_only: bool, interrupt: Interrupt) -> _Runner:
    provisioner = one.variant.provisioner
    # the kill comes from the lab's admin account: the replay's own account may be read-only
    bound = StatementBound(
        one.connection,
        timeout_s,
        provisioner.flavor,
        lambda: provisioner.endpoint.connect(timeout_s=5, read_timeout_s=ADMIN_READ_TIMEOUT_S),
    )
    bound.apply()
    interrupt.attach(bound)
    return _Runner(Statements(bound, read_only))


def _capture(one: _Open, run: _Runner, dataset: DumpDataset, statements: list[SourceStatement]) -> None:
    one.replay.times = [[] for _ in statements]
    for index, statement in enumerate(statements):
        refused = _use(one.connection, statement.database or dataset.database)
        if refused is not None:
            one.missing[index] = refused
        outcome = refused or capture(run.statements, statement.sql)
        if refused is not None or outcome.kind in ("refused", "timed out"):
            run.untimed.add(index)
        one.replay.outcomes.append(outcome)


def _statement_passes(
    one: _Open,
    run: _Runner,
    dataset: DumpDataset,
    statements: list[SourceStatement],
    index: int,
    passes: int,
    *,
    warm_up: bool = False,
) -> None:
    """`passes` timed passes of statement `index` (each repeated, timing.py, its value kept); None per
    pass when it is left out. `warm_up`: one run, nothing kept."""
    one.replay.repeats = one.replay.repeats or [0 for _ in statements]
    statement = statements[index]
    if index in run.untimed:
        if not warm_up:
            one.replay.times[index].extend([None] * passes)
        return
    one.connection.select_db(statement.database or dataset.database)
    for done in range(1, passes + 1):
        runs = timed_runs(run.statements, statement.sql, one.clock, max_repeats=1 if warm_up else None)
        seconds = pass_value(runs)
        if not warm_up:
            one.replay.times[index].append(seconds)
            one.replay.repeats[index] = len(runs or [])
        if seconds == float("inf"):  # timed out: not run again on this variant (the passes left: None)
            run.untimed.add(index)
            if not warm_up:
                one.replay.times[index].extend([None] * (passes - done))
            return


def _kept_nowhere(_: Schedule) -> None:
    """An Extension's `extended` when nothing stores the schedule (the bench, tests)."""


@dataclass(frozen=True)
class Extension:
    """How a replay extends its rounds (module docstring, step 4): at most `max_rounds` rounds in all;
    undecided(replays): the indexes of the statements whose fingerprint is still undecided on what was
    timed so far (replay/extension.py `still_undecided`); extended(schedule): called with the longer
    schedule before its added rounds run (the runner stores it)."""

    max_rounds: int
    undecided: Callable[[list[VariantReplay]], Collection[int]]
    extended: Callable[[Schedule], None] = _kept_nowhere


def extension_steps(
    schedule: Schedule, extension: Extension, replays: Callable[[], list[VariantReplay]]
) -> Iterator[tuple[Schedule, list[int]]]:
    """Each extension step: the longer schedule (execution/schedule.py `extensions`, EXTENSION_STEP
    rounds more, cut at max_rounds) and the statements its added rounds time: those still undecided
    after the rounds so far, and never one decided before (a decided statement is not timed again, so
    what decided it stands). Asks `extension.undecided` once per step, after the previous step ran."""
    remaining: set[int] | None = None

    def undecided() -> bool:
        nonlocal remaining
        found = set(extension.undecided(replays()))
        remaining = found if remaining is None else remaining & found
        return bool(remaining)

    budget = Budget(extension.max_rounds, None, time.monotonic())
    for longer in extensions(schedule, budget, undecided):
        yield longer, sorted(remaining or ())


def _one_clock(opened: list[_Open]) -> None:
    """One clock for every variant (a ratio of server time to client time means nothing): the
    server's when every variant has it, else the client's."""
    server = all(one.clock is not None for one in opened)
    for one in opened:
        if not server and one.clock is not None:
            with suppress(pymysql.MySQLError, OSError):
                one.clock.admin.close()
            one.clock = None
        one.replay.clock = "server" if server else "client"


def _measured(opened: dict[int, _Open], count: int, rounds: int) -> ReplayCancelled:
    """What an interrupted replay keeps (ReplayCancelled's docstring)."""
    replays = [opened[index].replay for index in range(count) if index in opened]
    captured = min((len(r.outcomes) for r in replays), default=0) if len(replays) == count else 0
    for replay in replays:
        replay.outcomes = replay.outcomes[:captured]
        times = replay.times or [[] for _ in range(captured)]
        replay.times = [one[: rounds * replay.passes] for one in times[:captured]]
    return ReplayCancelled(replays, captured, rounds if captured else 0)


def replay_rounds(
    variants: list[ReplayVariant],
    dataset: DumpDataset,
    statements: list[SourceStatement],
    schedule: Schedule,
    report: Callable[[str, DatasetProgress], None] = lambda variant, progress: None,
    step: Callable[[str, str], None] = lambda variant, phase: None,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    read_only: bool = True,
    interrupt: Interrupt | None = None,
    interleave: Interleave = "pass",
    extension: Extension | None = None,
) -> list[VariantReplay]:
    """The whole replay (see the module docstring): one VariantReplay per variant, in `variants` order.

    schedule: an interleaved execution/schedule.py Schedule over len(variants) variants (its `order` gives
    each round's variant order; its `block` is the passes over the statements in each block).
    report(variant, progress): a variant's dump load progress (called from its start thread);
    step(variant, phase): each phase ("starting the server", "capturing outcomes", "round 2 of 10").
    timeout_s: every statement's bound (seconds); read_only: statements in read-only transactions
    as the dataset's reader account (False: the replay allows writes; its writer account, _open);
    interrupt: set from another thread to stop the replay;
    interleave: how a round takes turns (round_turns): "pass" (the default, module docstring),
    "statement" or "block" (the layouts bench/replay_resolution.py compares);
    extension: more rounds for the still-undecided statements (module docstring, step 4); None: the
    schedule's rounds only. An extension round times fewer statements, so a statement's times may
    hold more rounds than another's (the statements of one fingerprint always alike).
    Raises the first start failure (ProvisionError, LoadFailed, pymysql errors) once every instance
    has started or failed; ReplayCancelled once interrupted; every instance is stopped on every
    exit path.
    """
    interrupt = interrupt or Interrupt()
    interrupt.servers = [variant.provisioner for variant in variants]
    opened: dict[int, _Open] = {}
    runs: dict[int, _Runner] = {}
    rounds_done = 0
    instances = [
        Instance(variant.provisioner, variant.options, [index]) for index, variant in enumerate(variants)
    ]

    def start(instance: Instance) -> bool:
        index = instance.variants[0]
        variant = variants[index]
        step(variant.name, "starting the server")
        opened[index] = _open(
            variant,
            dataset,
            lambda progress: report(variant.name, progress),
            writes=not read_only,
            timeout_s=timeout_s,
            cancelled=lambda: interrupt.is_set,
        )
        runs[index] = _runner(opened[index], timeout_s, read_only, interrupt)
        return True

    def passes(index: int, statement: int, count: int, warm_up: bool = False) -> None:
        _statement_passes(opened[index], runs[index], dataset, statements, statement, count, warm_up=warm_up)

    try:
        with started(instances, start, "replay") as fleet:
            try:
                if interrupt.is_set:
                    raise StatementInterrupted("interrupted while the servers started")
                failure = next((error for error in fleet.errors if error is not None), None)
                if failure is not None:
                    raise failure
                _one_clock([opened[index] for index in range(len(variants))])
                for index, instance in enumerate(instances):
                    one = opened[index]
                    one.replay.passes = schedule.block
                    step(one.variant.name, f"capturing outcomes of {len(statements)} statements")
                    with fleet.block(instance):
                        _capture(one, runs[index], dataset, statements)
                        for statement in range(len(statements)):
                            passes(index, statement, 1, warm_up=True)

                def one_round(number: int, order: list[int], chosen: int | list[int], phase: str) -> None:
                    nonlocal rounds_done
                    for index in order:
                        step(opened[index].variant.name, phase)
                    turns = round_turns(order, chosen, schedule.block, interleave)
                    for index, block in groupby(turns, key=lambda turn: turn[0]):
                        with fleet.block(instances[index]):  # thawed for its consecutive turns
                            for _, statement, count in block:
                                passes(index, statement, count)
                    rounds_done = number

                for number, order in enumerate(schedule.order, start=1):
                    one_round(number, order, len(statements), f"round {number} of {schedule.rounds}")

                def replays() -> list[VariantReplay]:
                    return [opened[index].replay for index in range(len(variants))]

                if extension is not None:
                    for longer, chosen in extension_steps(schedule, extension, replays):
                        extension.extended(longer)  # stored before its rounds, as a run's extension
                        for number in range(rounds_done + 1, longer.rounds + 1):
                            one_round(
                                number,
                                longer.order[number - 1],
                                chosen,
                                f"round {number} of at most {extension.max_rounds} (extended): "
                                f"{len(chosen)} statements still undecided",
                            )
                return replays()
            finally:
                for one in opened.values():  # the connections first: `started` then stops every server
                    with suppress(pymysql.MySQLError, OSError):
                        one.connection.close()
                    if one.clock is not None:
                        with suppress(pymysql.MySQLError, OSError):
                            one.clock.admin.close()
    except StatementInterrupted as stopped:
        raise _measured(opened, len(variants), rounds_done) from stopped
