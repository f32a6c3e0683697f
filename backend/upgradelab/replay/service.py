"""Replay runs on the API side: validate and store (parsing the source there, so a bad source is a
422 naming `queries`), queue for the worker, read back, cancel."""

from dataclasses import asdict

from anyio import to_thread
from fastapi import HTTPException, status
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.datasets import service as datasets
from upgradelab.datasets.models import Dataset
from upgradelab.errors import field_error
from upgradelab.execution.status import JobStatus
from upgradelab.execution.task import send_job
from upgradelab.experiments.variants import ResolvedVariant, VariantError, resolve_variant, unsupported_reason
from upgradelab.measurement import ReplayVariantSpec, SourceError, parse_source, replay_session_variable
from upgradelab.pools import routing
from upgradelab.replay.jobs import REPLAY_JOBS
from upgradelab.replay.models import ReplayRun
from upgradelab.replay.schemas import ReplayCreate, ReplayRead, ReplaySchedule, variant_name
from upgradelab.targets import option_lists
from upgradelab.targets.models import Target
from upgradelab.targets.own_password import account_change
from upgradelab.targets.provisioners import ExistingProvisioner
from upgradelab.targets.provisioners.existing_settings import read_only_refusal

REDO_OFF = "ALTER INSTANCE DISABLE INNODB REDO_LOG"  # the redo-off preset's statement (variants.py)


def _unprocessable(field: str, message: str) -> HTTPException:
    return HTTPException(
        status.HTTP_422_UNPROCESSABLE_ENTITY,
        [{"loc": ["body", field], "msg": message, "type": "value_error"}],
    )


async def _variants(session: AsyncSession, spec: ReplayCreate) -> list[ReplayVariantSpec]:
    """The variants as stored, each checked as a run's (runs/experiments.py create): 422 naming
    variants.N.target for an unknown target, variants.N.preset for a preset its flavor cannot take,
    variants.N.options.<name> for a startup option refused by category or not listed by the target's
    binary (its admin-listed `allowed_options` excepted; 503 naming the target when the list cannot
    be built), variants.N.target for a read-only target (purpose capture: a replay loads its
    dataset there), variants.N.set_session.<name> for a variable the replay sets itself, and for an
    existing server (one the lab does not start: a single instance shared with others) its startup
    options, SET GLOBAL and instance statements; whether the server has each variable and takes its
    value is checked on the variant's own instance when it starts (variant_settings.py). The spec's
    own syntax (a value with a newline, a refused variable, an instance statement off the list) is
    refused before, by the schema (422 at variants.N)."""
    out: list[ReplayVariantSpec] = []
    single_server: set[str] = set()  # targets of a kind that cannot start more instances
    for index, item in enumerate(spec.variants):
        field: list[str | int] = ["body", "variants", index]
        target = await session.scalar(select(Target).where(Target.name == item.target))
        if target is None:
            raise field_error([*field, "target"], f"variants[{index}]: no target named {item.target!r}")
        refused = read_only_refusal(target.name, target.provisioner, target.settings)
        if refused:  # a replay loads its dataset on the target: a write
            raise field_error([*field, "target"], f"variants[{index}]: {refused}")
        existing = target.provisioner == ExistingProvisioner.kind
        if existing:
            single_server.add(target.name)
        try:
            variant = resolve_variant(
                item.target, item.preset, item.name or variant_name(item.target, item.preset),
                item.options, item.set_global, item.set_session, item.instance,
            )  # fmt: skip
        except VariantError as error:
            raise field_error(field, f"variants[{index}]: {error}") from error
        reason = unsupported_reason(variant, target.flavor, target.version)
        if reason:
            raise field_error([*field, "preset"], f"variant {variant.name!r}: {reason}")
        instance = list(variant.instance)
        if variant.redo_log == "disabled" and REDO_OFF not in instance:
            instance.insert(0, REDO_OFF)  # the preset's statement, applied with the others
        replay_sets = replay_session_variable(variant.set_session)
        if replay_sets:
            name, why = replay_sets
            message = f"variant {variant.name!r}: SET SESSION {name} is refused in a replay: {why}"
            raise field_error([*field, "set_session", name], message)
        if existing:
            _only_session_on_existing(field, variant.name, target.name, variant, instance)
        if spec.allow_writes and not target.disposable:
            raise _unprocessable(
                "allow_writes", f"writes replay only on disposable targets; {target.name} is not"
            )
        named = zip(variant.options, variant.option_lines(), strict=True)
        await option_lists.check_named_lines(target, named, field, f"variant {variant.name!r}")
        out.append(
            ReplayVariantSpec(
                name=variant.name,
                target=target.name,
                preset=variant.preset,
                options=variant.option_lines(),
                set_global=variant.set_global,
                set_session=variant.set_session,
                instance=instance,
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
    names = [v.name for v in out]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise _unprocessable(
            "variants", f"each variant once; repeated names: {', '.join(repeated)} (give each its own name)"
        )
    if single_server and spec.shard_count != 1:
        # every host of a sharded replay would time its statements on that one server at once
        raise _unprocessable(
            "shards",
            f"target {sorted(single_server)[0]} is one existing server: the hosts of a sharded replay "
            "would time their statements on it at the same time (shards 1)",
        )
    for name in single_server:
        if sum(v.target == name for v in out) > 1:
            # every variant gets its own instance; a server the lab does not run cannot be copied
            raise _unprocessable("variants", f"target {name} is one existing server: one variant only")
    return out


def _only_session_on_existing(
    field: list[str | int], name: str, target: str, variant: ResolvedVariant, instance: list[str]
) -> None:
    """422 for what an existing server cannot take in a replay: startup options (the lab writes no
    option file there), SET GLOBAL and instance statements (they would change a server the lab does
    not own, for every session on it, and a replay puts nothing back). SET SESSION is the replay's
    own connection's, and allowed."""
    why = f"target {target} is an existing server the lab does not start or own"
    if variant.options:
        option = next(iter(variant.options))
        raise field_error(
            [*field, "options", option[:80]],
            f"variant {name!r}: startup options need an option file; {why} (use set_session)",
        )
    if variant.set_global:
        setting = next(iter(variant.set_global))
        raise field_error(
            [*field, "set_global", setting],
            f"variant {name!r}: SET GLOBAL would change it for every session; {why} (use set_session)",
        )
    if instance:
        raise field_error(
            [*field, "instance"], f"variant {name!r}: instance statements would change it; {why}"
        )


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
    for statement in parsed.statements:  # a writing replay's statements run as the writer
        change = account_change(statement.sql)
        if change is not None:
            raise _unprocessable(
                "queries",
                f"statement {statement.position + 1} ({change}) could change a lab account's password: "
                "refused (the lab's accounts keep the passwords it gives them)",
            )
    dataset = await datasets.get_or_raise(session, spec.dataset)
    variants = await _variants(session, spec)
    queue = await routing.route(session, {v.target for v in variants})  # 409 across worker pools
    replay = ReplayRun(
        name=spec.name or f"{dataset.name}: {len(parsed.statements)} statements on {len(variants)} variants",
        dataset_id=dataset.id,
        source_format=parsed.format,
        variants=variants,
        repeats=spec.round_count,
        passes=spec.passes,
        sample=spec.sample,
        allow_writes=spec.allow_writes,
        statement_timeout_s=spec.statement_timeout_s,
        statements=parsed.statements,
        skipped_writes=parsed.skipped_writes,
        status=JobStatus.queued,
        # the extension's budget, kept in the schedule's JSON (runner.py): no column of its own
        schedule=ReplaySchedule(max_rounds=spec.max_round_count),
        shards=spec.shard_count,
    )
    session.add(replay)
    await session.commit()
    await session.refresh(replay)
    await to_thread.run_sync(send_job, REPLAY_JOBS, replay.id, queue)
    return replay


async def get_or_raise(session: AsyncSession, replay_id: int) -> ReplayRun:
    """The replay run; 404 naming it otherwise."""
    replay = await session.get(ReplayRun, replay_id)
    if replay is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no replay run {replay_id}")
    return replay


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
            "max_rounds": replay.schedule.max_rounds if replay.schedule else None,
            "shards": "auto" if replay.shards == 0 else replay.shards,
            # before it starts the schedule holds the extension's budget only
            "schedule": replay.schedule.planned() if replay.schedule else None,
            "sample": replay.sample,
            "allow_writes": replay.allow_writes,
            "statement_timeout_s": replay.statement_timeout_s,
            "statements": len(replay.statements),
            "skipped_writes": [asdict(s) for s in replay.skipped_writes],
            "progress": replay.progress,
            "error": replay.error,
            "created_at": replay.created_at,
            "ended_at": replay.ended_at,
            "report": replay.report if with_report else None,
        }
    )
