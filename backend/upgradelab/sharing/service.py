"""Share link verbs: create, list, revoke, resolve (public)."""

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.db import utcnow
from upgradelab.errors import not_found
from upgradelab.sharing.models import ShareLink
from upgradelab.sharing.schemas import ShareCreate, ShareRead
from upgradelab.users.service import token_digest
from upgradelab.users.tokens import new_share_token


def to_read(link: ShareLink, token: str | None = None) -> ShareRead:
    """API shape; `token` and its `path` only in the answer that made the link (`token`: the one
    create gave): the database keeps the token's sha256 alone."""
    read = ShareRead.model_validate(link)
    read.token = token
    read.path = f"/share/{token}" if token else None
    return read


async def create(session: AsyncSession, spec: ShareCreate, user_id: int) -> tuple[ShareLink, str]:
    """A new link with an unguessable token (192 random bits), stored as its sha256: (the link, the
    token, to be shown this once)."""
    token, digest = new_share_token()
    link = ShareLink(
        token=digest,
        kind=spec.kind,
        run_id=spec.run_id,
        comparison=spec.comparison.model_dump() if spec.comparison else None,
        replay_id=spec.replay_id if spec.kind == "replay" else None,
        created_by=user_id,
    )
    session.add(link)
    await session.commit()
    return link, token


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
    link = (await session.scalars(select(ShareLink).where(ShareLink.token == token_digest(token)))).first()
    if link is None or link.revoked_at is not None:
        raise not_found("share link", "(unknown or revoked)")
    return link
