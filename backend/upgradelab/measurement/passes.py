"""A replay's statements on one variant: each one's outcome captured once, then its timed passes
(each repeated until enough time was measured, timing.py), under the statement bound."""

from dataclasses import dataclass, field

import pymysql

from upgradelab.measurement.counters import WorkTally
from upgradelab.measurement.dataset_load import DumpDataset
from upgradelab.measurement.interrupt import Interrupt
from upgradelab.measurement.opening import OpenVariant
from upgradelab.measurement.outcomes import Outcome, Statements, capture, routines_callable
from upgradelab.measurement.sources import SourceStatement
from upgradelab.measurement.stage_events import RunStages, StageTally
from upgradelab.measurement.timing import pass_value, timed_runs
from upgradelab.targets.provisioners.base import ADMIN_READ_TIMEOUT_S
from upgradelab.targets.statement_timeout import StatementBound

# Whether a statement's passes select its default database (COM_INIT_DB) even where the connection's
# is that one already (issue 51: before every statement's passes, it was 6 % of the replay thread's
# time, bench/replay_speed.py --profile). False: only where it differs from the one selected last
# (`use_database`); True: every time, as before (bench/replay_speed.py's modes set it).
SELECT_DB_EVERY_PASS = False


def use_database(statements: Statements, database: str) -> None:
    """Make `database` the default of the statements' connection (select_db), unless it is the one
    selected last on it (Statements.database) in a read-only replay: a replayed statement cannot
    change it there (the source's `USE` sets a statement's database, sources.py; a routine's own is
    set back after it), where a write (DROP DATABASE) could. The server's error passes through and
    forgets the one selected (so does a pass that errs or times out: statement_passes)."""
    if SELECT_DB_EVERY_PASS or not statements.read_only or statements.database != database:
        statements.database = None
        statements.connection.select_db(database)
        statements.database = database if statements.read_only else None


def _use(statements: Statements, database: str) -> Outcome | None:
    """Make `database` the default; the server's refusal as the statement's outcome (a log taken on
    another server may name a database the dump does not hold)."""
    try:
        statements.database = None  # selected every time: the outcome's capture has no pass before it
        use_database(statements, database)
    except pymysql.MySQLError as error:
        return Outcome(int(error.args[0]), f"default database {database!r}: {error.args[1]}")
    return None


@dataclass
class StatementRunner:
    """A variant's user statements (bounded, read-only unless writes are allowed) and the ones its
    timed passes leave out (database absent, refused, timed out)."""

    statements: Statements
    untimed: set[int] = field(default_factory=set)


def statement_runner(
    one: OpenVariant, timeout_s: float, read_only: bool, interrupt: Interrupt
) -> StatementRunner:
    """The variant's statements under the bound `timeout_s`, attached to `interrupt`."""
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
    routines = not read_only or routines_callable(one.connection)
    return StatementRunner(Statements(bound, read_only, routines))


def capture_outcomes(
    one: OpenVariant, run: StatementRunner, dataset: DumpDataset, statements: list[SourceStatement]
) -> None:
    """Each statement's outcome once (outcomes.py capture); a statement refused, timed out or
    without its database is left out of the timed passes."""
    one.replay.times = [[] for _ in statements]
    one.replay.work = [WorkTally() for _ in statements]
    for index, statement in enumerate(statements):
        refused = _use(run.statements, statement.database or dataset.database)
        if refused is not None:
            one.missing[index] = refused
        outcome = refused or capture(run.statements, statement.sql)
        if refused is not None or outcome.kind in ("refused", "timed out"):
            run.untimed.add(index)
        one.replay.outcomes.append(outcome)


def statement_passes(
    one: OpenVariant,
    run: StatementRunner,
    dataset: DumpDataset,
    statements: list[SourceStatement],
    index: int,
    passes: int,
    *,
    warm_up: bool = False,
) -> None:
    """`passes` timed passes of statement `index` (each repeated, timing.py, its value kept); None per
    pass when it is left out (client_times alike: each pass's value by the client's clock too, timing.py).
    Where the replay keeps stages (`one.replay.stages`, engine.py), each pass's stages too, one entry
    per pass (stage_events.StageTally; an entry without stages where the pass is left out).
    `warm_up`: one run, nothing kept."""
    one.replay.repeats = one.replay.repeats or [0 for _ in statements]
    if len(one.replay.client_times) < len(statements):
        one.replay.client_times = [[] for _ in statements]
    statement = statements[index]
    tally = None if warm_up or index >= len(one.replay.stages) else one.replay.stages[index]
    if index in run.untimed:
        if not warm_up:
            _left_out(one, index, tally, passes)
        return
    use_database(run.statements, statement.database or dataset.database)
    for done in range(1, passes + 1):
        client: list[float] = []
        stages: list[RunStages] = []
        work = None if warm_up or index >= len(one.replay.work) else one.replay.work[index]
        runs = timed_runs(
            run.statements,
            statement.sql,
            one.clock,
            max_repeats=1 if warm_up else None,
            client=client,
            work=work,
            stages=stages if tally is not None else None,
            stage_runs=one.replay.stage_runs,
        )
        seconds = pass_value(runs)
        if not warm_up:
            one.replay.times[index].append(seconds)
            one.replay.client_times[index].append(pass_value(client) if runs and client else seconds)
            one.replay.repeats[index] = len(runs or [])
        if seconds is None or seconds == float("inf"):  # the session's state not known after it
            run.statements.database = None
        if tally is not None:  # a pass that errored or timed out: no stages of its own
            tally.add_pass(stages if seconds is not None and seconds != float("inf") else [])
        if seconds == float("inf"):  # timed out: not run again on this variant (the passes left: None)
            run.untimed.add(index)
            if not warm_up:
                _left_out(one, index, tally, passes - done)
            return


def _left_out(one: OpenVariant, index: int, tally: StageTally | None, passes: int) -> None:
    """`passes` passes of statement `index` not timed: None in its times (both clocks), an entry
    without stages in its tally."""
    one.replay.times[index].extend([None] * passes)
    one.replay.client_times[index].extend([None] * passes)
    if tally is not None:
        for _ in range(passes):
            tally.add_pass([])
