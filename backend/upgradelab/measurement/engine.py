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
   the round's shuffled order first, then each turn's order balanced so every variant follows every
   other one as often, turns.py BALANCED), each thawed for its turn and frozen after it;
   a statement is repeated until enough time was measured (timing.py: the server's clock where the
   variant's server gives it, every instance the lab starts having performance_schema ON, the
   client's otherwise; the client's time is kept too, for a pair on different clocks; on the server's
   clock each run's stages are read with its row, measurement/stage_events.py) and the pass's value is the
   median of its runs; the round's value is the median of its passes; the null
   statement `DO 0` (statement_cost.py) is timed after the user's in every round, on every variant,
   as one more statement (the per-statement cost, measured apart); from step 2 on, the replay's
   thread and every variant's server process share one CPU (execution/timing_cpu.py: a fast
   statement's server time otherwise depends on where the scheduler put them, pass by pass), put
   back on every CPU when the rounds end;
4. extension (`Extension`, replay/extension.py): while some fingerprints are still undecided and
   the replay's max_rounds allows, EXTENSION_STEP more rounds (execution/schedule.py `extensions`,
   the runs' auto-extension) of the still-undecided statements only (and the null statement),
   laid out as in step 3; decided statements are not timed again.

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

Its parts, each a module: opening a variant (opening.py: server, dataset, account, clock), the
statements on one variant (passes.py: outcomes, timed passes), the interrupt and what it keeps
(interrupt.py), the extension's steps (extension_plan.py); this module runs the rounds. Their
public names are importable from here too, as the code has imported them.
"""

from collections.abc import Callable
from contextlib import ExitStack, suppress
from itertools import groupby

import pymysql

from upgradelab.execution import timing_cpu
from upgradelab.execution.instances import Instance, started
from upgradelab.execution.schedule import Schedule
from upgradelab.measurement.dataset_load import DumpDataset
from upgradelab.measurement.extension_plan import Extension, extension_steps
from upgradelab.measurement.interrupt import Interrupt, ReplayCancelled, measured
from upgradelab.measurement.openers import VariantOpener
from upgradelab.measurement.opening import (
    ReplayVariant,
    VariantReplay,
    say_clocks,
    with_clock_options,
)
from upgradelab.measurement.passes import (
    capture_outcomes,
    statement_passes,
)
from upgradelab.measurement.sources import SourceStatement
from upgradelab.measurement.stage_events import StageTally
from upgradelab.measurement.statement_cost import NULL_STATEMENT
from upgradelab.measurement.turns import Interleave, round_turns
from upgradelab.settings import get_settings
from upgradelab.targets.statement_timeout import DEFAULT_TIMEOUT_S, StatementInterrupted
from upgradelab.workloads.base import DatasetProgress


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
    as the dataset's reader account (False: the replay allows writes; its writer account, open_variant);
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
    variants = [with_clock_options(variant) for variant in variants]  # the server's clock (timing.py)
    null = len(statements)  # the null statement's index: timed after the user's (statement_cost.py)
    user_statements, statements = statements, [*statements, NULL_STATEMENT]
    interrupt.servers = [variant.provisioner for variant in variants]
    start = VariantOpener(
        dict(enumerate(variants)), dataset, timeout_s, interrupt, not read_only, report, step
    )
    opened, runs = start.opened, start.runners
    rounds_done = 0
    instances = [
        Instance(variant.provisioner, variant.options, [index]) for index, variant in enumerate(variants)
    ]

    def passes(index: int, statement: int, count: int, warm_up: bool = False) -> None:
        statement_passes(opened[index], runs[index], dataset, statements, statement, count, warm_up=warm_up)

    try:
        with started(instances, start, "replay") as fleet, ExitStack() as pinned:
            try:
                if interrupt.is_set:
                    raise StatementInterrupted("interrupted while the servers started")
                failure = next((error for error in fleet.errors if error is not None), None)
                if failure is not None:
                    raise failure
                say_clocks([opened[index] for index in range(len(variants))])
                # the client and every server on one CPU while timed (execution/timing_cpu.py), back
                # on every CPU when the rounds end (a server may be kept as a spare)
                settings = get_settings()
                servers = [(variant.name, variant.provisioner.pid()) for variant in variants]
                timing = pinned.enter_context(
                    timing_cpu.one_cpu(settings.replay_timing_cpu, servers, settings.timing_cpu_claims_dir)
                )
                for one in opened.values():
                    one.replay.timing_cpu = timing.text
                for index, instance in enumerate(instances):
                    one = opened[index]
                    one.replay.passes, one.replay.null_statement = schedule.block, null
                    step(one.variant.name, f"capturing outcomes of {len(user_statements)} statements")
                    with fleet.block(instance):
                        capture_outcomes(one, runs[index], dataset, statements)
                        if one.replay.stage_events and settings.replay_stages:  # stage_events.py
                            # the user's statements only: the null statement's ~200 runs a pass
                            # would each pay a stage read for a time no fingerprint shows
                            one.replay.stages = [StageTally() for _ in user_statements]
                            one.replay.stage_runs = settings.replay_stage_runs or None
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
                                [*chosen, null],
                                f"round {number} of at most {extension.max_rounds} (extended): "
                                f"{len(chosen)} statements still undecided",
                            )
                return replays()
            except StatementInterrupted as stopped:
                cancelled = measured(opened, len(variants), rounds_done)
                if interrupt.kept is not None:
                    interrupt.kept(cancelled)  # before `started` stops the servers
                raise cancelled from stopped
            finally:
                for one in opened.values():  # the connections first: `started` then stops every server
                    with suppress(pymysql.MySQLError, OSError):
                        one.connection.close()
                    if one.clock is not None:
                        with suppress(pymysql.MySQLError, OSError):
                            one.clock.admin.close()
    except StatementInterrupted as stopped:
        raise measured(opened, len(variants), rounds_done) from stopped


__all__ = [
    "Extension",
    "Interrupt",
    "ReplayCancelled",
    "ReplayVariant",
    "VariantReplay",
    "extension_steps",
    "replay_rounds",
]
