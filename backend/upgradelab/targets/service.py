"""Target queries."""

from collections.abc import Sequence

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.errors import field_error
from upgradelab.targets.existing_service import detect_into
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import SETTINGS_MODELS, ExistingProvisioner
from upgradelab.targets.schemas import TargetCreate


async def list_targets(session: AsyncSession) -> Sequence[Target]:
    """Every target, by name."""
    return (await session.scalars(select(Target).order_by(Target.name))).all()


async def get_by_names(session: AsyncSession, names: set[str]) -> dict[str, Target]:
    """The targets among `names` that exist, by name."""
    rows = await session.scalars(select(Target).where(Target.name.in_(names)))
    return {target.name: target for target in rows}


async def create(session: AsyncSession, spec: TargetCreate) -> Target:
    """Store a new target after validating its settings for its provisioner kind.

    Raises 422 (FastAPI's shape) naming the field: ["body", "provisioner"] for an unknown kind,
    ["body", "settings", <field>...] for a bad setting, ["body", "name"] for a name in use.
    """
    model = SETTINGS_MODELS.get(spec.provisioner)
    if model is None:
        raise field_error(
            ["body", "provisioner"],
            f"unknown provisioner {spec.provisioner!r}: one of {sorted(SETTINGS_MODELS)}",
        )
    try:
        settings = model.model_validate(spec.settings).model_dump(exclude_unset=True)
    except ValidationError as error:
        first = error.errors()[0]
        raise field_error(["body", "settings", *first["loc"]], first["msg"]) from error
    if await get_by_names(session, {spec.name}):
        raise field_error(["body", "name"], f"target {spec.name!r} already exists")
    target = Target(
        name=spec.name,
        flavor=spec.flavor,
        provisioner=spec.provisioner,
        settings=settings,
        disposable=spec.disposable,
    )
    if spec.provisioner == ExistingProvisioner.kind:
        await detect_into(target, restart_test=spec.restart_test)
    session.add(target)
    await session.commit()
    return target
