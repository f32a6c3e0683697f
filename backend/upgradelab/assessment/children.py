"""How an assessment makes, reads and cancels its children: through their kinds' own services
(captures/service.py, replay/service.py, fixsearch/service.py, execution/cancel_request.py), each
call run from the worker's thread by `db.run_async`. A child is owned by the assessment's owner (who
may cancel and share it on its own page). A service's refusal (its HTTP error: 404, 409, 422; or
a request its kind's schema refuses) is raised as `Refused` with its words, so the runner needs no
web framework (the worker starts without one: tests/contract/test_import_cost.py); this module is
imported when an assessment runs.
"""

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastapi import HTTPException
from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.assessment import service
from upgradelab.assessment.report import AssessmentReport
from upgradelab.assessment.schemas import AssessmentChildren
from upgradelab.captures import service as captures
from upgradelab.captures.schemas import CaptureCreate, CaptureRead, CheckCreate, MyCnfCreate
from upgradelab.captures.team_variant import team_variant_of
from upgradelab.datasets.models import Dataset
from upgradelab.db import run_async
from upgradelab.execution.cancel_request import request_cancel
from upgradelab.execution.kinds import JobKind
from upgradelab.fixsearch import service as fixsearches
from upgradelab.fixsearch.schemas import FixSearchCreate
from upgradelab.replay import service as replays
from upgradelab.replay.schemas import ReplayCreate, ReplayRead
from upgradelab.targets import service as targets

log = logging.getLogger(__name__)
T = TypeVar("T")
REPLAY_INSTANCES = 3  # baseline, new version, A/A control: the team's buffer pool shared by three


class Refused(Exception):
    """A kind's service refused a child (its HTTP error's words)."""


def _call(work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    try:
        return run_async(work)
    except HTTPException as refused:
        raise Refused(str(refused.detail)) from refused
    except ValidationError as invalid:  # a request the kind's schema refuses (a variant's options)
        first = invalid.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise Refused(f"{where}: {first['msg']}") from invalid


async def _owned(session: AsyncSession, row: Any, owner: int | None) -> int:
    row.created_by = owner
    await session.commit()
    return int(row.id)


def create_capture(target: str | None, my_cnf: str | None, owner: int | None) -> int:
    """A capture of existing target `target` (read-only), or option file `my_cnf` stored as a
    capture; its id. Refused: the capture service's words."""

    async def work(session: AsyncSession) -> int:
        if target is not None:
            row = await captures.create(session, CaptureCreate(target=target))
        else:
            row = await captures.create_from_my_cnf(session, MyCnfCreate(text=my_cnf or ""))
        return await _owned(session, row, owner)

    return _call(work)


def read_capture(capture_id: int) -> CaptureRead:
    """Capture `capture_id` as the API reads it."""
    return _call(lambda session: service.read_capture(session, capture_id))


def create_check(capture_id: int, version: str, owner: int | None) -> int:
    """A check of capture `capture_id` against lab target `version`; its id."""

    async def work(session: AsyncSession) -> int:
        capture = await captures.get_or_raise(session, capture_id)
        return await _owned(
            session, await captures.create_check(session, capture, CheckCreate(target=version)), owner
        )

    return _call(work)


def create_replay(
    capture_id: int,
    name: str,
    baseline: str,
    version: str,
    dataset: str | None,
    queries: str | None,
    owner: int | None,
    allowance_mb: int,
) -> int:
    """A replay named `name` of the capture's workload (or `queries`) on `dataset` (or the capture's
    dump) on `baseline` and `version`, each with the team's settings (captures/team_variant.py; the
    lab's defaults when they cannot be read, logged), with an A/A control; its id."""

    async def work(session: AsyncSession) -> int:
        row = await captures.get_or_raise(session, capture_id)
        if dataset is None:
            found = await session.scalar(select(Dataset.name).where(Dataset.id == row.dataset_id))
        variants = []
        for target_name in (baseline, version):
            target = await targets.get_or_raise(session, target_name)
            try:
                variant = await team_variant_of(session, row, target, REPLAY_INSTANCES, allowance_mb)
                options = variant.options
            except (ValueError, HTTPException) as unread:
                log.warning("%s: the team's settings on %s not read: %s", name, target_name, unread)
                options = {}
            variants.append({"target": target_name, "name": target_name, "options": options})
        text = queries or captures.queries(row)
        if not text.strip():
            raise Refused("no workload: none of the captured statements is one a replay takes")
        spec = ReplayCreate.model_validate(
            {
                "name": name,
                "dataset": dataset if dataset is not None else (found or ""),
                "queries": text,
                "variants": variants,
                "aa_control": True,
            }
        )
        return await _owned(session, await replays.create(session, spec), owner)

    return _call(work)


def read_replay(replay_id: int) -> ReplayRead:
    """Replay `replay_id` with its report."""
    return _call(lambda session: service.read_replay(session, replay_id))


def create_fix_search(
    replay_id: int, fingerprint_id: str, variant: str, minutes: float, tolerance: float, owner: int | None
) -> int:
    """A fix search of `fingerprint_id` slower on `variant` of replay `replay_id`, within `minutes`, a
    remedy restoring when at most `tolerance` slower than the baseline (0.10 = 10 %)."""
    spec = FixSearchCreate(
        replay_id=replay_id,
        fingerprint_id=fingerprint_id,
        variant=variant,
        budget_minutes=minutes,
        tolerance=tolerance,
    )

    async def work(session: AsyncSession) -> int:
        return await _owned(session, await fixsearches.create(session, spec), owner)

    return _call(work)


def cancel(kind: JobKind, child_id: int) -> None:
    """Child `child_id` of `kind` cancelled through its own cancel (a queued one at once, a started
    one by its worker); one that ended meanwhile or is gone is left."""
    try:
        _call(lambda session: request_cancel(session, kind, child_id))
    except Refused:
        return


def report(children: AssessmentChildren) -> AssessmentReport:
    """The report of `children` as they are now (service.read_report)."""
    return _call(lambda session: service.read_report(session, children))
