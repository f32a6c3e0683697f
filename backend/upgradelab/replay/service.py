"""Replay runs on the API side: validate and store (parsing the source there, so a bad source is a
422 naming `queries`), queue for the worker, read back, cancel."""

from dataclasses import asdict

from anyio import to_thread
from fastapi import HTTPException, status
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.datasets import service as datasets
from upgradelab.datasets.models import Dataset
from upgradelab.execution.cancel_request import request_cancel
from upgradelab.execution.status import JobStatus
from upgradelab.experiments.variants import VariantError, resolve_variant
from upgradelab.pools import routing
from upgradelab.replay.jobs import REPLAY_JOBS
from upgradelab.replay.models import ReplayRun
from upgradelab.replay.schemas import ReplayCreate, ReplayRead, ReplayVariantSpec
from upgradelab.replay.sources import SourceError, parse_source
from upgradelab.targets import option_lists
from upgradelab.targets.models import Target
from upgradelab.targets.options import OptionError
from upgradelab.targets.provisioners import ExistingProvisioner
from upgradelab.worker import EXECUTE_REPLAY, celery_app


def _unprocessable(field: str, message: str) -> HTTPException:
    return HTTPException(
        status.HTTP_422_UNPROCESSABLE_ENTITY,
        [{"loc": ["body", field], "msg": message, "type": "value_error"}],
    )


async def _variants(session: AsyncSession, spec: ReplayCreate) -> list[ReplayVariantSpec]:
    out: list[ReplayVariantSpec] = []
    single_server: set[str] = set()  # targets of a kind that cannot start more instances
    for index, text in enumerate(spec.variants):
        target_name, _, preset = text.partition(":")
        target = await session.scalar(select(Target).where(Target.name == target_name))
        if target is None:
            raise _unprocessable("variants", f"variants[{index}]: no target named {target_name!r}")
        if target.provisioner == ExistingProvisioner.kind:
            single_server.add(target_name)
        try:
            variant = resolve_variant(target_name, preset or "default", name=text)
        except VariantError as error:
            raise _unprocessable("variants", f"variants[{index}]: {error}") from error
        if variant.redo_log != "enabled":
            raise _unprocessable("variants", f"variants[{index}]: replay takes startup-option presets only")
        if spec.allow_writes and not target.disposable:
            raise _unprocessable(
                "allow_writes", f"writes replay only on disposable targets; {target_name} is not"
            )
        try:  # the target's option list is built first if missing (503 naming the target)
            await option_lists.check_target_lines(target, variant.option_lines())
        except OptionError as error:
            raise _unprocessable("variants", f"variants[{index}]: {error}") from error
        out.append(
            ReplayVariantSpec(
                name=text, target=target_name, preset=variant.preset, options=variant.option_lines()
            )
        )
    if spec.aa_control:
        base = out[0]
        name = f"{base.name} (A/A)"
        if base.target in single_server:
            raise _unprocessable(
                "aa_control", f"target {base.target} is one existing server: no second instance"
            )
        if any(v.name == name for v in out):
            raise _unprocessable("aa_control", f"a variant is already named {name!r}")
        out.append(base.model_copy(update={"name": name, "aa_control": True}))
    if len({v.name for v in out}) != len(out):
        raise _unprocessable("variants", "each variant once")
    for name in single_server:
        if sum(v.target == name for v in out) > 1:
            # every variant gets its own instance; a server the lab does not run cannot be copied
            raise _unprocessable("variants", f"target {name} is one existing server: one variant only")
    return out


async def create(session: AsyncSession, spec: ReplayCreate) -> ReplayRun:
    """Store a queued replay run and send it to the worker. The source is read first, in a worker
    thread (sources.py: linear in the text, refused past the statement limit), so the event loop
    answers other requests meanwhile and a bad source is a 422 naming `queries` before any target
    is looked at."""
    try:
        parsed = await to_thread.run_sync(
            lambda: parse_source(
                spec.queries, sample=spec.sample, allow_writes=spec.allow_writes, fmt=spec.format
            )
        )
    except SourceError as error:
        raise _unprocessable("queries", str(error)) from error
    dataset = await datasets.get_or_raise(session, spec.dataset)
    variants = await _variants(session, spec)
    queue = await routing.route(session, {v.target for v in variants})  # 409 across worker pools
    replay = ReplayRun(
        name=spec.name or f"{dataset.name}: {len(parsed.statements)} statements on {len(variants)} variants",
        dataset_id=dataset.id,
        source_format=parsed.format,
        variants=[v.model_dump() for v in variants],
        repeats=spec.round_count,
        passes=spec.passes,
        sample=spec.sample,
        allow_writes=spec.allow_writes,
        statement_timeout_s=spec.statement_timeout_s,
        statements=[asdict(s) for s in parsed.statements],
        skipped_writes=[asdict(s) for s in parsed.skipped_writes],
        status=JobStatus.queued,
        # the extension's budget, kept in the schedule's JSON (runner.py): no column of its own
        schedule={"max_rounds": spec.max_round_count},
    )
    session.add(replay)
    await session.commit()
    await session.refresh(replay)
    await to_thread.run_sync(lambda: celery_app.send_task(EXECUTE_REPLAY, args=[replay.id], queue=queue))
    return replay


async def get_or_raise(session: AsyncSession, replay_id: int) -> ReplayRun:
    """The replay run; 404 naming it otherwise."""
    replay = await session.get(ReplayRun, replay_id)
    if replay is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no replay run {replay_id}")
    return replay


async def cancel(session: AsyncSession, replay: ReplayRun) -> ReplayRun:
    """Cancel a replay (execution/cancel_request.py, the same for every kind): a queued one at once
    (the worker then finds it not queued); a running one is flagged, and its worker's cancel watch
    ends it within seconds (runner.py: the statement running killed, the servers stopped, the locks
    freed, what it measured kept); a running one whose lease expired (worker gone) is ended at once
    by the reaper's path. 409 when it already ended."""
    await request_cancel(session, REPLAY_JOBS, replay.id)
    await session.refresh(replay)
    return replay


async def list_replays(session: AsyncSession, limit: int = 100) -> list[ReplayRun]:
    """The newest replay runs first."""
    return list(await session.scalars(select(ReplayRun).order_by(ReplayRun.id.desc()).limit(limit)))


async def to_read(session: AsyncSession, replay: ReplayRun, *, with_report: bool) -> ReplayRead:
    """The API's view of a stored replay, its JSON columns validated into their schemas (reports
    stored before rounds read with the fields they lack as None)."""
    dataset = await session.get(Dataset, replay.dataset_id)
    return ReplayRead.model_validate(
        {
            "id": replay.id,
            "name": replay.name,
            "dataset": dataset.name if dataset else None,
            "dataset_sha256": dataset.sha256 if dataset else None,
            "dataset_deleted_at": dataset.deleted_at if dataset else None,
            "status": replay.status,
            "source_format": replay.source_format,
            "variants": replay.variants,
            "rounds": replay.repeats,  # the column predates rounds
            "passes": replay.passes,
            "max_rounds": (replay.schedule or {}).get("max_rounds"),
            # before it starts the schedule holds the extension's budget only
            "schedule": replay.schedule if replay.schedule and "order" in replay.schedule else None,
            "sample": replay.sample,
            "allow_writes": replay.allow_writes,
            "statement_timeout_s": replay.statement_timeout_s,
            "statements": len(replay.statements),
            "skipped_writes": replay.skipped_writes,
            "progress": replay.progress,
            "error": replay.error,
            "created_at": replay.created_at,
            "ended_at": replay.ended_at,
            "report": replay.report if with_report else None,
        }
    )
