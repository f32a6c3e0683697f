"""Concurrent replays on the API side: validate and store (the log read into sessions there, so a
bad log is a 422 naming `log` before any target is looked at), queue for the worker, read back."""

from anyio import to_thread
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.concurrent_replay.jobs import CONCURRENT_REPLAY_JOBS
from upgradelab.concurrent_replay.models import ConcurrentReplay
from upgradelab.concurrent_replay.schemas import ConcurrentReplayCreate, ConcurrentReplayRead
from upgradelab.datasets import service as datasets
from upgradelab.errors import field_error
from upgradelab.execution.status import JobStatus
from upgradelab.execution.task import send_job
from upgradelab.experiments.variants import VariantError, unsupported_reason
from upgradelab.measurement import (
    ReplayVariantSpec,
    SessionLog,
    log_sessions,
    replay_session_variable,
    text_stream,
)
from upgradelab.pools import routing
from upgradelab.targets import option_lists
from upgradelab.targets.models import Target
from upgradelab.targets.own_password import account_change
from upgradelab.targets.provisioners import LocalProvisioner

REDO_OFF = "ALTER INSTANCE DISABLE INNODB REDO_LOG"  # the redo-off preset's statement (variants.py)


def _sessions(spec: ConcurrentReplayCreate) -> SessionLog:
    """The log read into sessions (measurement log_sessions, its bounds); 422 naming `log`."""
    try:
        log = log_sessions(text_stream(spec.log), spec.format)
    except ValueError as error:  # SessionsError: a bound passed, or a record the reader refuses
        raise field_error(["body", "log"], f"not a {spec.format} log the lab reads: {error}") from error
    if not log.sessions:
        raise field_error(["body", "log"], f"no session with a statement in this {spec.format} log")
    if len(log.sessions) > spec.max_sessions:
        raise field_error(
            ["body", "log"],
            f"{len(log.sessions):,} sessions: a trial runs at most {spec.max_sessions:,} at once "
            "(max_sessions)",
        )
    for session in log.sessions:  # the sessions run as the dataset's writer
        for statement in session.statements:
            change = account_change(statement.sql)
            if change is not None:
                raise field_error(
                    ["body", "log"],
                    f"line {statement.line} ({change}) could change a lab account's password: refused",
                )
    return log


async def _variants(session: AsyncSession, spec: ConcurrentReplayCreate) -> list[ReplayVariantSpec]:
    """The variants as stored: 422 naming variants.N.target for a target that is unknown, not
    disposable (the replay writes) or not a lab instance (local targets: every trial copies its
    datadir), variants.N.preset for a preset its flavor cannot take, variants.N.set_session.<name>
    for a variable the replay sets itself (measurement REPLAY_SESSION_VARIABLES: its statement
    bound), variants.N.options.<name> for a startup option the target refuses (503 naming the target when its
    list cannot be built); `variants` for a repeated name. SET GLOBAL, SET SESSION and instance
    statements are stored (the schema refused their syntax) and applied on every trial's server and
    sessions (measurement run_trial); a variable the server lacks or a value it refuses fails the
    replay naming the variant and the setting (SettingRefused). The redo-off preset is its instance
    statement, first."""
    out: list[ReplayVariantSpec] = []
    for index, item in enumerate(spec.variants):
        field: list[str | int] = ["body", "variants", index]
        target = await session.scalar(select(Target).where(Target.name == item.target))
        if target is None:
            raise field_error([*field, "target"], f"variants[{index}]: no target named {item.target!r}")
        if not target.disposable:
            raise field_error(
                [*field, "target"],
                f"variants[{index}]: target {target.name} is not disposable (the replay writes)",
            )
        if target.provisioner != LocalProvisioner.kind:
            raise field_error(
                [*field, "target"],
                f"variants[{index}]: target {target.name} is a {target.provisioner} target; "
                "a concurrent replay copies a lab instance's datadir for every trial (local targets only)",
            )
        try:
            variant = item.resolve()
        except VariantError as error:
            raise field_error(field, f"variants[{index}]: {error}") from error
        reason = unsupported_reason(variant, target.flavor, target.version)
        if reason:
            raise field_error([*field, "preset"], f"variant {variant.name!r}: {reason}")
        replay_sets = replay_session_variable(variant.set_session)
        if replay_sets:
            name, why = replay_sets
            message = f"variant {variant.name!r}: SET SESSION {name} is refused in a concurrent replay: {why}"
            raise field_error([*field, "set_session", name], message)
        named = zip(variant.options, variant.option_lines(), strict=True)
        await option_lists.check_named_lines(target, named, field, f"variant {variant.name!r}")
        out.append(
            ReplayVariantSpec(
                name=item.name or target.name,
                target=target.name,
                preset=variant.preset,
                options=variant.option_lines(),
                set_global=variant.set_global,
                set_session=variant.set_session,
                instance=[*([REDO_OFF] if variant.redo_log == "disabled" else []), *variant.instance],
            )
        )
    if spec.aa_control:
        out.append(out[0].model_copy(update={"name": f"{out[0].name} (A/A)", "aa_control": True}))
    names = [v.name for v in out]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise field_error(["body", "variants"], f"each variant once; repeated names: {', '.join(repeated)}")
    return out


async def create(session: AsyncSession, spec: ConcurrentReplayCreate) -> ConcurrentReplay:
    """Store a queued concurrent replay and send it to the worker (its pool's queue: 409 across
    pools). 404 for an unknown dataset; 422 naming the field (`log`, `variants...`)."""
    log = await to_thread.run_sync(_sessions, spec)
    dataset = await datasets.get_or_raise(session, spec.dataset)
    variants = await _variants(session, spec)
    queue = await routing.route(session, {v.target for v in variants})
    row = ConcurrentReplay(
        name=spec.name or f"{dataset.name}: {len(log.sessions)} sessions on {len(variants)} variants",
        dataset_id=dataset.id, source_format=spec.format, variants=variants, sessions=log,
        rounds=spec.rounds, speed=spec.speed, statement_timeout_s=spec.statement_timeout_s,
        max_trial_s=spec.max_trial_s, max_sessions=spec.max_sessions, status=JobStatus.queued,
    )  # fmt: skip
    session.add(row)
    await session.commit()
    await session.refresh(row)
    await to_thread.run_sync(send_job, CONCURRENT_REPLAY_JOBS, row.id, queue)
    return row


def to_read(row: ConcurrentReplay) -> ConcurrentReplayRead:
    """The API's view of a stored concurrent replay (its typed columns as they are)."""
    log = row.sessions
    return ConcurrentReplayRead(
        id=row.id, name=row.name, dataset_id=row.dataset_id, status=row.status, error=row.error,
        source_format=row.source_format, variants=list(row.variants), rounds=row.rounds, speed=row.speed,
        statement_timeout_s=row.statement_timeout_s, max_trial_s=row.max_trial_s,
        max_sessions=row.max_sessions, sessions=len(log.sessions), statements=log.statements,
        transactions=log.transactions, duration_s=log.duration_s, cut=list(log.cut), progress=row.progress,
        schedule=row.schedule, trials=list(row.trials), report=row.report, created_at=row.created_at,
        started_at=row.started_at, finished_at=row.finished_at, shared=row.shared,
    )  # fmt: skip
