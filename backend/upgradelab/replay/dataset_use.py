"""What the replays know about a dataset: how many reports were measured on it, which replays on it
have not ended, and the targets they loaded it on (the API's dataset views and delete)."""

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.replay.models import ReplayRun

UNFINISHED = ("queued", "running")


async def replay_counts(session: AsyncSession, ids: list[int]) -> dict[int, int]:
    """Per dataset id, how many replay runs were made on it (absent: none)."""
    rows = await session.execute(
        select(ReplayRun.dataset_id, func.count())
        .where(ReplayRun.dataset_id.in_(ids))
        .group_by(ReplayRun.dataset_id)
    )
    return {dataset_id: count for dataset_id, count in rows.tuples()}


async def usage(session: AsyncSession, dataset_id: int) -> tuple[list[int], set[str]]:
    """(ids of the replays on the dataset that have not ended (queued or running), ascending; the
    names of the targets any replay on it ran on, where a copy may have been loaded)."""
    rows = (
        await session.execute(
            select(ReplayRun.id, ReplayRun.status, ReplayRun.variants)
            .where(ReplayRun.dataset_id == dataset_id)
            .order_by(ReplayRun.id)
        )
    ).all()
    unfinished = [replay_id for replay_id, state, _ in rows if state in UNFINISHED]
    return unfinished, {v.target for _, _, variants in rows for v in variants}
