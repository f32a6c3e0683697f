"""One step of an attribution: an ordinary interleaved run of the origin's workload with the baseline,
the variant as it is and the variant given the baseline's values for one or more subsets, executed in
the attribution's own task, then measured.

Why inline (runs/executor/runner.py execute_run called here) and not queued: a worker with concurrency 1 that
waited for a queued step would wait for itself. The step run takes its targets' locks and its own
lease like any run (a busy target: retried every 2 s while the attribution is not cancelled).

The share a subset closes, from the step's own rounds (results/stats/verdicts.py, paired within the
run): gap = variant / baseline, closed = test / variant; share = log(closed) / -log(gap), its interval
the closed interval's ends over the same -log(gap) (the gap's own noise is in the contributions'
spread across steps, not in this interval).
"""

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from redis import Redis
from sqlalchemy import select

from upgradelab.db import sync_session
from upgradelab.execution.locks import TargetsBusy
from upgradelab.execution.status import JobStatus
from upgradelab.experiments.schedule import resolve_schedule
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.results.stats import verdicts
from upgradelab.results.store import rounds
from upgradelab.runs.executor.runner import execute_run
from upgradelab.runs.models import Experiment, Run, RunVariant, VariantStatus
from upgradelab.settings import Settings
from upgradelab.workloads import WORKLOADS

BUSY_RETRY_S = 2.0


class StepFailed(RuntimeError):
    """A step run did not give a usable measurement; the message names the run and why."""


class StepCancelled(Exception):
    """The attribution was cancelled while a step waited or ran."""


@dataclass(frozen=True)
class Measured:
    """A tested subset's outcome in one step: share of the gap closed and its interval, and the
    verdict of the test against the variant (None: no interval)."""

    share: float
    low: float
    high: float
    verdict: verdicts.VerdictRead | None


def create_run(
    origin: Experiment,
    variants: list[ResolvedVariant],
    rounds_: int,
    block: int,
    name: str,
    owner: int | None = None,
) -> int:
    """Store a queued run of a new experiment: the origin's workload, parameters and policy, these
    variants, `rounds_` interleaved rounds of `block` iterations, owned by `owner` (the attribution's
    creator: they may cancel it as they may the attribution, users/auth.py require_owner); its id.
    No message is sent: the attribution executes it (execute)."""
    schedule = resolve_schedule(
        "interleaved", None, rounds_, block, None, WORKLOADS[origin.workload].info.default_iterations
    )
    with sync_session() as session:
        experiment = Experiment(
            name=name[:200],
            workload=origin.workload,
            iterations=schedule.iterations,
            parameters=origin.parameters,
            policy=origin.policy,
            variants=variants,
            schedule=schedule.kind,
            rounds=schedule.rounds,
            block=schedule.block,
            aa_control=False,
            seed=schedule.seed,
        )
        session.add(experiment)
        session.flush()
        targets = sorted({variant.target for variant in variants})
        run = Run(
            experiment_id=experiment.id,
            status=JobStatus.queued,
            targets="," + ",".join(targets) + ",",
            name=name[:200],
            created_by=owner,
        )
        session.add(run)
        session.commit()
        return run.id


def execute(run_id: int, redis: Redis, settings: Settings, cancelled: Callable[[], bool]) -> dict[int, str]:
    """Execute the step run here; {variant index: error} of the test variants that failed (refused
    by the server, broke). StepFailed when the baseline or the variant failed, or the run failed
    otherwise; StepCancelled when the attribution was cancelled meanwhile (the step run then ends
    `cancelled` within its watch's poll, runs/executor/runner.py)."""
    while True:
        try:
            # the run's cancel watch reads the attribution's flag too: a cancel that came before the step
            # run was named in the attribution's progress (service.cancel cancels that run) still ends it
            status = execute_run(run_id, redis, settings, cancelled)
            break
        except TargetsBusy:
            if cancelled():
                raise StepCancelled() from None
            time.sleep(BUSY_RETRY_S)
    with sync_session() as session:
        run = session.get(Run, run_id)
        error = run.error if run is not None else "gone"
        final = run.status if run is not None else None
        failed = {
            row.variant_index: row.error or "failed"
            for row in session.scalars(
                select(RunVariant).where(
                    RunVariant.run_id == run_id, RunVariant.status == VariantStatus.failed
                )
            )
        }
    if final == JobStatus.cancelled or status == JobStatus.cancelled:
        raise StepCancelled()
    if final != JobStatus.succeeded and (not failed or min(failed) < 2):
        raise StepFailed(f"step run {run_id} ended {final}: {error}")
    return failed


def measure(
    run_id: int, group: str, metric: str, failed: dict[int, str] | None = None
) -> tuple[verdicts.VerdictRead, list[Measured | str]]:
    """(the gap variant / baseline, per test variant in order its outcome, or the
    error of a test variant in `failed`) from the step run's rounds; StepFailed when the gap has no
    interval or is exactly 1."""
    with sync_session() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise StepFailed(f"step run {run_id} is gone")
        loaded = rounds.load(session, run)
    chosen = next((m for m in loaded.metrics if m.name == metric), loaded.metrics[0])
    where = group if group in loaded.groups else loaded.groups[0]
    base = loaded.variants[0].rounds(where, chosen)
    var = loaded.variants[1].rounds(where, chosen)
    gap = verdicts.interval(base, var, paired=True)
    gap_read = verdicts.read(gap, higher_is_better=chosen.higher_is_better)
    if gap is None or gap_read is None or gap.ratio == 1:
        raise StepFailed(f"step run {run_id}: no gap between the baseline and the variant to attribute")
    scale = -math.log(gap.ratio)
    out: list[Measured | str] = []
    for test in loaded.variants[2:]:
        if test.variant_index in (failed or {}):
            out.append((failed or {})[test.variant_index])
            continue
        closed = verdicts.interval(var, test.rounds(where, chosen), paired=True)
        if closed is None:
            raise StepFailed(f"step run {run_id}: variant {test.name!r} has no values")
        ends = sorted((math.log(closed.low) / scale, math.log(closed.high) / scale))
        read = verdicts.read(closed, higher_is_better=chosen.higher_is_better)
        out.append(
            Measured(
                math.log(closed.ratio) / scale,
                ends[0],
                ends[1],
                read,
            )
        )
    return gap_read, out
