"""A fix search on the worker, through the lifecycle every job shares (execution/lifecycle.py): the
locks of its two variants' targets (values `fixsearch:<id>:`), its lease and heartbeat (jobs.py), the
final state on every exit path. The body: the two servers opened (measure.py `opened_pair`), both
sides' variables read and the candidates built (candidates.py, stored), the search (search.py) with
the real oracle (measure.py PairOracle), each trial stored as it ends, the outcome stored last.
Global remedies (effects.py) by the search's `scope`: "both" gives the search effects.global_twin to
re-verify a restoring setting as a global one, "global" tries the setting candidates as global
remedies only (an index hint cannot be global: left out; evidence.py `scoped`); either checks a
restoring global remedy on the replay's other fingerprints (whole.py; their sampled statements read
from the replay's row). A statistics candidate's arm runs on a second instance of the variant
(second.py: the variant's target's next slot, opened when the search reaches it, ended with the search).

Cancel (its API route sets `cancel_requested`): a watch (execution/cancel.py) reads the flag every
CANCEL_POLL_S seconds
and interrupts the search (the statement running is killed, none other starts; servers still
starting are stopped); it ends `cancelled` with the trials made so far.
"""

import logging
import subprocess
import time
from contextlib import closing
from dataclasses import replace
from typing import Any

from redis import Redis
from sqlalchemy import select
from sqlalchemy.orm import Session

from upgradelab.datasets.fetch import local_dump
from upgradelab.datasets.loader import LoadFailed
from upgradelab.datasets.models import Dataset
from upgradelab.datasets.service import database_of
from upgradelab.db import sync_session
from upgradelab.execution.cancel import CancelWatch
from upgradelab.execution.instances import MemoryRefused, Slots, check_memory
from upgradelab.execution.kinds import Ending
from upgradelab.execution.leases import Lease
from upgradelab.execution.lifecycle import execute
from upgradelab.execution.reaper import stop_targets
from upgradelab.execution.status import JobStatus
from upgradelab.fixsearch import state
from upgradelab.fixsearch.candidates import Candidate, is_optimizer_variable
from upgradelab.fixsearch.catalog import read_schema
from upgradelab.fixsearch.effects import SideEffects, global_twin
from upgradelab.fixsearch.evidence import gathered, only, scoped
from upgradelab.fixsearch.indexes import Schema
from upgradelab.fixsearch.jobs import FIX_SEARCH_JOBS
from upgradelab.fixsearch.measure import PairOracle
from upgradelab.fixsearch.models import SOURCE_KIND, FixSearch
from upgradelab.fixsearch.schemas import FixCandidateStored, FixTrialRead
from upgradelab.fixsearch.search import Budget, SearchCancelled, Trial, scaled_budget, search, search_looks
from upgradelab.fixsearch.second import SECOND, SecondInstance
from upgradelab.fixsearch.sides import Side, opened_pair
from upgradelab.fixsearch.whole import side_effects
from upgradelab.measurement import (
    DumpDataset,
    Interrupt,
    MeasuredWorkload,
    ReplayVariant,
    ReplayVariantSpec,
    SourceStatement,
    VariantSettings,
    measured_workload,
    server_turn,
)
from upgradelab.settings import Settings, get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.option_names import unused_variables
from upgradelab.targets.provisioners import ProvisionError

log = logging.getLogger(__name__)
CANCEL_POLL_S = 1.0


def execute_fix_search(search_id: int, redis: Redis, settings: Settings | None = None) -> str | None:
    """Run a queued fix search to its final status and return it; None when it was not queued (or its
    lease was lost and someone else ended it). TargetsBusy while a target is locked."""
    settings = settings or get_settings()
    row, targets, dataset = _load(search_id)
    if row is None:
        return None
    body = lambda lease: _body(row, targets, dataset, settings, lease)  # noqa: E731
    return execute(FIX_SEARCH_JOBS, search_id, list(targets.values()), redis, settings, body)


def _load(search_id: int) -> tuple[FixSearch | None, dict[str, Target], Dataset | None]:
    with sync_session() as session:
        row = session.get(FixSearch, search_id)
        if row is None or row.status != JobStatus.queued:
            return None, {}, None
        names = {v.target for v in row.variants}
        targets = {t.name: t for t in session.scalars(select(Target).where(Target.name.in_(names)))}
        dataset = session.get(Dataset, row.dataset_id)
        session.expunge_all()
        return row, targets, dataset


def _workload(session: Session, search_id: int) -> tuple[FixSearch | None, MeasuredWorkload | None]:
    row = session.get(FixSearch, search_id)
    return row, measured_workload(session, SOURCE_KIND, row.replay_id) if row is not None else None


def other_fingerprints(search_id: int) -> list[tuple[str, str, list[SourceStatement]]]:
    """The replay's fingerprints other than the search's, in the replay's order: (id, text, its
    sampled statements) (a global remedy's side-effect check; [] when the replay is gone)."""
    with sync_session() as session:
        row, workload = _workload(session, search_id)
    if row is None or workload is None:
        return []
    return workload.other_fingerprints(row.fingerprint_id)


def write_count(search_id: int) -> int:
    """The replay's write statements: those a read-only replay left out (skipped_writes) and those
    it replayed with allow_writes (0 when the replay is gone): an index's cost on them is not
    measured by the search (measure.py `_change`)."""
    with sync_session() as session:
        _, workload = _workload(session, search_id)
    return workload.write_count() if workload is not None else 0


def stored_trials(trials: list[Trial]) -> list[FixTrialRead]:
    """The trials as fix_search.tried stores them (schemas.FixTrialRead each, in the order made)."""
    return [FixTrialRead.model_validate(t.as_dict()) for t in trials]


def unused_of(variant: ReplayVariant) -> frozenset[str]:
    """The variables the variant's server binary calls unused in its own `--verbose --help`
    (targets/option_names.py unused_variables: never candidates); none when it cannot be read (an
    existing server has no binary here), which leaves every variable a candidate."""
    try:
        return unused_variables(variant.provisioner.option_help())
    except (ProvisionError, OSError, subprocess.SubprocessError) as error:
        log.info("fix search: %s --verbose --help not read: %s", variant.name, error)
        return frozenset()


def variant_schema(side: Side, database: str, sql: str) -> Schema:
    """The variant's information_schema of `database` for statement `sql` (catalog.py), read as the
    lab's admin on the side's server (thawed by the caller)."""
    with closing(side.one.variant.provisioner.endpoint.connect(database)) as admin:
        return read_schema(admin, database, sql)


def _variants(
    specs: list[ReplayVariantSpec], targets: dict[str, Target], settings: Settings
) -> tuple[list[ReplayVariant], ReplayVariant | None]:
    """Each variant on its own instance (slots of its target, as a replay gives them); memory checked.
    Also the variant's second instance (the statistics candidate's, second.py): the variant's target's
    next slot, its options and settings; None when the target's kind has one server only."""
    slots = Slots(settings)
    out = []
    for index, spec in enumerate(specs):
        target = targets.get(spec.target)
        if target is None:
            raise ProvisionError(f"variant {spec.name!r}: target {spec.target!r} does not exist")
        provisioner = slots.provisioner(target)
        slots.keep(target, provisioner, spec.options, index)
        own = VariantSettings(spec.options, spec.set_global, spec.set_session, spec.instance)
        out.append(ReplayVariant(spec.name, provisioner, spec.options, own))
    check_memory([v.options for v in out], settings.instance_allowance_mb)
    variant, spec = out[-1], specs[-1]
    provisioner = slots.provisioner(targets[spec.target])
    if not provisioner.instances:
        return out, None
    slots.keep(targets[spec.target], provisioner, spec.options, len(out))
    return out, replace(variant, name=f"{variant.name} (second instance)", provisioner=provisioner)


def second_note(search_id: int) -> str:
    """What a statistics candidate's ratios rest on (second.py): its arm is a second instance of the
    variant, so an instance difference is part of them; the replay's A/A control's interval for the
    fingerprint (a second instance of the baseline against the baseline) when the replay had one."""
    note = f"its arm ran on {SECOND} (an instance difference is part of its ratios"
    with sync_session() as session:
        row, workload = _workload(session, search_id)
    floor = workload.floors.get(row.fingerprint_id) if row is not None and workload is not None else None
    if workload is not None and workload.aa_control and floor:
        note += (
            f"; the replay's A/A control, {workload.aa_control}, measured {floor.ratio:.3f} "
            f"[{floor.low:.3f}, {floor.high:.3f}] against the baseline on this fingerprint"
        )
    return note + ")"


def _body(row: FixSearch, targets: dict[str, Target], dataset: Dataset | None, settings: Settings,
          lease: Lease) -> Ending:  # fmt: skip
    interrupt = Interrupt()
    started = time.monotonic()
    trials: list[Trial] = []
    rounds_done = 0

    def progress(phase: str, message: str) -> dict[str, Any]:
        return {"phase": phase, "tried": len(trials), "rounds_done": rounds_done,
                "minutes": round((time.monotonic() - started) / 60, 2), "message": message}  # fmt: skip

    def cancel() -> None:
        interrupt.set()
        if interrupt.attached < max(2, len(interrupt.servers)):  # one still starting or loading: stop it
            stop_targets(f"fixsearch {row.id}", list(targets.values()), settings)

    def step(phase: str) -> None:
        state.write(row.id, progress=progress(phase, phase))

    def on_trial(made: list[Trial], spent: int) -> None:
        nonlocal trials, rounds_done
        trials, rounds_done = list(made), spent
        last = made[-1]
        state.write(row.id, tried=stored_trials(made),
                    progress=progress("measuring", f"{last.name}: {last.status}"))  # fmt: skip

    try:
        with CancelWatch.of(FIX_SEARCH_JOBS, row.id, cancel, CANCEL_POLL_S):
            if dataset is None or dataset.deleted_at is not None:
                raise LoadFailed("the dataset was deleted", line=None, code=None)
            dump = DumpDataset(local_dump(dataset, settings), dataset.sha256, database_of(dataset.name))
            specs = row.variants
            (baseline, variant), twin = _variants(specs, targets, settings)
            statements = row.statements
            second = SecondInstance(
                twin, dump, timeout_s=row.statement_timeout_s, interrupt=interrupt,
                others=[baseline.options, variant.options], allowance_mb=settings.instance_allowance_mb,
                what=f"fix search {row.id}", why_not=f"target {specs[-1].target} is one server only",
            )  # fmt: skip
            with opened_pair(baseline, variant, dump, timeout_s=row.statement_timeout_s, interrupt=interrupt,
                             step=step) as (base_side, var_side), closing(second):  # fmt: skip
                second.cpu = var_side.cpu
                read = {}
                for name, side in (("baseline", base_side), ("variant", var_side)):
                    with server_turn(side):
                        read[name] = side.own = side.variables()
                checks = row.scope != "statement"  # a global remedy is checked on the whole replay

                def check(candidate: Candidate) -> SideEffects:
                    state.write(row.id, progress=progress(
                        "checking side effects",
                        f"{candidate.name} on the replay's {len(oracle.others)} other fingerprints",
                    ))  # fmt: skip
                    return side_effects(oracle, candidate)

                oracle = PairOracle(
                    base_side, var_side, dump, statements, row.passes, row.id, interrupt,
                    row.tolerance, others=other_fingerprints(row.id) if checks else [],
                    side_rounds=row.side_rounds, side_minutes=row.side_minutes,
                    looks=search_looks(row.rounds), second=second, second_note=second_note(row.id),
                    writes=write_count(row.id),
                )  # fmt: skip
                step("capturing both plans")
                base_arm, var_arm = oracle.start()
                database = statements[0].database or dump.database
                with server_turn(var_side):
                    schema = variant_schema(var_side, database, statements[0].sql)
                unused = unused_of(variant)
                found = only(scoped(gathered(
                    var_side.flavor, statements[0].sql,
                    (base_arm.replay.outcomes[0], var_arm.replay.outcomes[0]),
                    (read["baseline"], read["variant"]), schema, database, unused,
                ), row.scope), row.sources)  # fmt: skip
                left_out = sorted(n for n in unused if is_optimizer_variable(n) and n in read["variant"])
                budget_rounds = (
                    scaled_budget(len(found), row.rounds) if row.budget_scaled else row.budget_rounds
                )
                stored = [FixCandidateStored.model_validate(c.as_dict()) for c in found]
                state.write(row.id, candidates=stored, budget_rounds=budget_rounds,
                            progress=progress("measuring", f"{len(found)} candidates"))  # fmt: skip
                timing = var_side.one.replay.timing_cpu
                outcome = search(
                    found, oracle, rounds=row.rounds, budget=Budget(budget_rounds, row.budget_minutes),
                    try_all=row.try_all, on_trial=on_trial,
                    globalize=global_twin if row.scope == "both" else None,
                    check=check if checks else None,
                )  # fmt: skip
    except SearchCancelled:
        return Ending(JobStatus.cancelled, fields={"progress": progress("done", "cancelled")})
    except (LoadFailed, ProvisionError, MemoryRefused) as failure:
        status = JobStatus.cancelled if interrupt.is_set else JobStatus.failed
        return Ending(status, None if interrupt.is_set else str(failure))
    except Exception as failure:  # the search must not stay running: any error is the user's to see
        if interrupt.is_set:
            return Ending(JobStatus.cancelled, fields={"progress": progress("done", "cancelled")})
        log.exception("fix search %s failed", row.id)
        return Ending(JobStatus.failed, f"{type(failure).__name__}: {failure}")
    status = JobStatus.cancelled if outcome.outcome == "cancelled" else JobStatus.succeeded
    return Ending(
        status,
        completed=True,
        fields={
            "tried": stored_trials(outcome.trials),
            "result": {**outcome.as_dict(), "timing_cpu": timing, "unused": left_out},
            "progress": progress("done", outcome.outcome),
        },
    )
