"""Target queries."""

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.targets.models import Target


async def list_targets(session: AsyncSession) -> Sequence[Target]:
    """Every target, by name."""
    return (await session.scalars(select(Target).order_by(Target.name))).all()


async def get_by_names(session: AsyncSession, names: set[str]) -> dict[str, Target]:
    """The targets among `names` that exist, by name."""
    rows = await session.scalars(select(Target).where(Target.name.in_(names)))
    return {target.name: target for target in rows}
