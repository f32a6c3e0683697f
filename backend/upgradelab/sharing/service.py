"""Share link verbs: create, list, revoke, resolve (public)."""

import secrets

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.db import utcnow
from upgradelab.errors import not_found
from upgradelab.sharing.models import ShareLink
from upgradelab.sharing.schemas import ShareCreate, ShareRead


def to_read(link: ShareLink) -> ShareRead:
    read = ShareRead.model_validate(link)
    read.path = f"/share/{link.token}"
    return read


async def create(session: AsyncSession, spec: ShareCreate, user_id: int) -> ShareLink:
    """A new link with an unguessable token (secrets.token_urlsafe(24): 192 random bits)."""
    link = ShareLink(
        token=secrets.token_urlsafe(24),
        kind=spec.kind,
        run_id=spec.run_id,
        comparison=spec.comparison.model_dump() if spec.comparison else None,
        replay_id=spec.replay_id if spec.kind == "replay" else None,
        created_by=user_id,
    )
    session.add(link)
    await session.commit()
    return link


async def list_links(
    session: AsyncSession, run_id: int | None, owner_id: int | None = None
) -> list[ShareLink]:
    """Links, newest first; only those of one run when run_id is given. With `owner_id`: that user's
    own links, revoked ones included, and the others' live ones only (a revoked link is its
    creator's history, not the team's)."""
    query = select(ShareLink).order_by(ShareLink.id.desc())
    if owner_id is not None:
        query = query.where(or_(ShareLink.created_by == owner_id, ShareLink.revoked_at.is_(None)))
    if run_id is not None:
        query = query.where(ShareLink.run_id == run_id)
    return list(await session.scalars(query))


async def get_or_raise(session: AsyncSession, link_id: int) -> ShareLink:
    """The link, or 404."""
    link = await session.get(ShareLink, link_id)
    if link is None:
        raise not_found("share link", link_id)
    return link


async def revoke(session: AsyncSession, link: ShareLink) -> ShareLink:
    """Mark revoked (the link stops working at once); revoking again changes nothing."""
    if link.revoked_at is None:
        link.revoked_at = utcnow()
        await session.commit()
    return link


async def resolve(session: AsyncSession, token: str) -> ShareLink:
    """The live link for `token`; 404 (same message) when unknown or revoked."""
    link = (await session.scalars(select(ShareLink).where(ShareLink.token == token))).first()
    if link is None or link.revoked_at is not None:
        raise not_found("share link", "(unknown or revoked)")
    return link
