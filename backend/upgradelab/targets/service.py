"""Target queries."""

import asyncio
from collections.abc import Sequence

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.errors import field_error, not_found
from upgradelab.settings import get_settings
from upgradelab.targets import validation
from upgradelab.targets.existing_service import detect_into
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import SETTINGS_MODELS, ExistingProvisioner
from upgradelab.targets.schemas import TargetCreate
from upgradelab.targets.sealed import seal


async def list_targets(session: AsyncSession) -> Sequence[Target]:
    """Every target, by name."""
    return (await session.scalars(select(Target).order_by(Target.name))).all()


async def get_or_raise(session: AsyncSession, name: str) -> Target:
    """The target named `name`, or 404."""
    target = await session.scalar(select(Target).where(Target.name == name))
    if target is None:
        raise not_found("target", name)
    return target


async def get_by_names(session: AsyncSession, names: set[str]) -> dict[str, Target]:
    """The targets among `names` that exist, by name."""
    rows = await session.scalars(select(Target).where(Target.name.in_(names)))
    return {target.name: target for target in rows}


async def create(session: AsyncSession, spec: TargetCreate) -> Target:
    """Store a new target after validating its settings for its provisioner kind.

    Raises 422 (FastAPI's shape) naming the field: ["body", "provisioner"] for an unknown kind,
    ["body", "settings", <field>...] for a bad setting (targets/validation.py: control characters,
    `..` segments, a host that is not loopback nor in UPGRADELAB_ALLOWED_HOSTS, a port another target
    uses, a refused base option, a binary that is missing or not a MySQL/MariaDB server),
    ["body", "name"] for a name in use. Messages never repeat a password.
    """
    validation.no_control_characters(spec.settings, ["body", "settings"])
    model = SETTINGS_MODELS.get(spec.provisioner)
    if model is None:
        raise field_error(
            ["body", "provisioner"],
            f"unknown provisioner {spec.provisioner!r}: one of {sorted(SETTINGS_MODELS)}",
        )
    try:
        validated = model.model_validate(spec.settings)
    except ValidationError as error:
        first = error.errors()[0]
        raise field_error(["body", "settings", *first["loc"]], first["msg"]) from error
    if await get_by_names(session, {spec.name}):
        raise field_error(["body", "name"], f"target {spec.name!r} already exists")
    app = get_settings()
    pools = list(dict.fromkeys(spec.pools or [app.pool]))
    if spec.provisioner != ExistingProvisioner.kind and len(pools) > 1:
        raise field_error(
            ["body", "pools"],
            f"a {spec.provisioner} target runs on one host: one pool, not {len(pools)} ({', '.join(pools)})",
        )
    # An existing server's host is checked against UPGRADELAB_EXISTING_HOSTS by its settings model, and
    # several existing targets may name one server (its runs are serialized by a server:host:port lock).
    checked = validated.model_dump()
    if spec.provisioner == ExistingProvisioner.kind:
        checked.pop("host", None)
        checked.pop("port", None)
    validation.check_settings(checked, await list_targets(session), app)
    if pools == [app.pool]:  # a binary on another pool's host is not to be seen from here
        await asyncio.to_thread(validation.check_binary, spec.provisioner, checked, app)
    target = Target(
        name=spec.name,
        flavor=spec.flavor,
        provisioner=spec.provisioner,
        settings=seal(validated.model_dump(exclude_unset=True)),  # no plaintext password stored
        disposable=spec.disposable,
        pools=pools,
    )
    if spec.provisioner == ExistingProvisioner.kind:
        await detect_into(target, restart_test=spec.restart_test)
    session.add(target)
    await session.commit()
    return target
