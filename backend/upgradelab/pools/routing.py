"""Which worker pool runs a job: the pool every one of its targets can be reached from.

A server the lab runs (local, tarball, docker) is in the one pool of the host it runs on; an existing
server lists the pools whose hosts may reach it (target.pools). A job's pool is the first, by name,
of the pools common to all its targets. A job whose targets have no pool in common is refused:
a timing comparison between two machines is not a comparison.
"""

from collections.abc import Iterable, Sequence

from fastapi import HTTPException, status
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.targets.models import Target
from upgradelab.worker import queue_of


class PoolsSpan(ValueError):
    """The targets of one job have no worker pool in common; the message names each target's pools."""


def pools_of(target: Target) -> list[str]:
    """The target's pools (a row from before migration 0020 read as the default pool)."""
    return [str(pool) for pool in (target.pools or ["local"])]


def pool_of(targets: Sequence[Target]) -> str:
    """The pool that runs a job on `targets`: the first by name of the pools all of them are in.

    Deterministic (the same targets give the same pool), so the API can tell later which pool a
    queued job waits in. Raises PoolsSpan when they have none in common (or there are no targets)."""
    common: set[str] | None = None
    for target in targets:
        common = set(pools_of(target)) if common is None else common & set(pools_of(target))
    if not common:
        each = "; ".join(f"{t.name}: {', '.join(pools_of(t))}" for t in sorted(targets, key=lambda t: t.name))
        raise PoolsSpan(
            f"the variants' targets are in different worker pools ({each}): a timing comparison "
            "across two machines is not a comparison; use targets one pool can reach"
        )
    return sorted(common)[0]


async def route(session: AsyncSession, target_names: Iterable[str]) -> str:
    """The Celery queue for a job on the targets named (worker.queue_of its pool).

    409 with PoolsSpan's reason when the targets span pools (the job must not be stored or sent)."""
    names = set(target_names)
    targets = list(await session.scalars(select(Target).where(Target.name.in_(names))))
    try:
        return queue_of(pool_of(targets))
    except PoolsSpan as span:
        raise HTTPException(status.HTTP_409_CONFLICT, str(span)) from span
