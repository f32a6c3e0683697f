"""Share link verbs for every job kind (one table, `job_share`): create, list, revoke, resolve.

A job of a kind with a share route (api/job_routes.py share_route: capture, check, attribution, fix
search) has at most one live link: sharing it again revokes the earlier one (`share_job`). A run,
a replay and a comparison may have several (POST /api/shares, `create`). Every link is revoked the
same way (`revoke`: DELETE /api/shares/{id}; `revoke_job` for a kind's own DELETE .../share)."""

from collections.abc import Collection

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.db import utcnow
from upgradelab.errors import not_found
from upgradelab.sharing.models import JobShare
from upgradelab.sharing.schemas import ShareCreate, ShareRead
from upgradelab.users.service import token_digest
from upgradelab.users.tokens import new_share_token


def to_read(link: JobShare, token: str | None = None) -> ShareRead:
    """API shape; `token` and its `path` only in the answer that made the link (`token`: the one
    create gave): the database keeps the token's sha256 alone. run_id / replay_id repeat job_id for
    those kinds (the fields the API had before one table)."""
    read = ShareRead(
        id=link.id,
        kind=link.kind,
        job_id=link.job_id,
        run_id=link.job_id if link.kind == "run" else None,
        replay_id=link.job_id if link.kind == "replay" else None,
        comparison=link.comparison,
        created_at=link.created_at,
        revoked_at=link.revoked_at,
    )
    read.token = token  # ShownOnce: never validated from input, set on the answer that made it
    read.path = f"/share/{token}" if token else None
    return read


async def create(session: AsyncSession, spec: ShareCreate, user_id: int) -> tuple[JobShare, str]:
    """A new link for a run, a replay or a comparison, with an unguessable token (192 random bits)
    stored as its sha256: (the link, the token, to be shown this once)."""
    token, digest = new_share_token()
    job_id = spec.run_id if spec.kind == "run" else spec.replay_id if spec.kind == "replay" else None
    comparison = spec.comparison if spec.kind == "comparison" else None
    link = JobShare(token=digest, kind=spec.kind, job_id=job_id, comparison=comparison, created_by=user_id)
    session.add(link)
    await session.commit()
    return link, token


async def share_job(session: AsyncSession, kind: str, job_id: int, user_id: int) -> str:
    """A new link for the `kind` job `job_id` made by `user_id`, its earlier live links revoked (they
    stop working): the token, to be shown this once."""
    await _revoke_live(session, kind, job_id)
    token, digest = new_share_token()
    session.add(JobShare(token=digest, kind=kind, job_id=job_id, created_by=user_id))
    await session.commit()
    return token


async def revoke_job(session: AsyncSession, kind: str, job_id: int) -> None:
    """Revoke every live link of the `kind` job `job_id` (they answer 404 from now on); none: nothing."""
    await _revoke_live(session, kind, job_id)
    await session.commit()


async def _revoke_live(session: AsyncSession, kind: str, job_id: int) -> None:
    live = (JobShare.kind == kind, JobShare.job_id == job_id, JobShare.revoked_at.is_(None))
    await session.execute(update(JobShare).where(*live).values(revoked_at=utcnow()))


async def list_links(
    session: AsyncSession,
    run_id: int | None,
    owner_id: int | None = None,
    kind: str | None = None,
    job_id: int | None = None,
) -> list[JobShare]:
    """Links of every kind, newest first; only those of one run when run_id is given, of one kind
    (and its job `job_id`) when `kind` is. With `owner_id`: that user's own links, revoked ones
    included, and the others' live ones only (a revoked link is its creator's history, not the
    team's)."""
    query = select(JobShare).order_by(JobShare.id.desc())
    if owner_id is not None:
        query = query.where(or_(JobShare.created_by == owner_id, JobShare.revoked_at.is_(None)))
    if run_id is not None:
        query = query.where(JobShare.kind == "run", JobShare.job_id == run_id)
    if kind is not None:
        query = query.where(JobShare.kind == kind)
    if job_id is not None:
        query = query.where(JobShare.job_id == job_id)
    return list(await session.scalars(query))


async def get_or_raise(session: AsyncSession, link_id: int) -> JobShare:
    """The link, or 404."""
    link = await session.get(JobShare, link_id)
    if link is None:
        raise not_found("share link", link_id)
    return link


async def revoke(session: AsyncSession, link: JobShare) -> JobShare:
    """Mark revoked (the link stops working at once); revoking again changes nothing."""
    if link.revoked_at is None:
        link.revoked_at = utcnow()
        await session.commit()
    return link


async def live_link(session: AsyncSession, token: str, kinds: Collection[str]) -> JobShare | None:
    """The live link of one of `kinds` whose token is `token` (looked up by its sha256); None when
    unknown, revoked or of another kind."""
    link = await session.scalar(select(JobShare).where(JobShare.token == token_digest(token)))
    return link if link is not None and link.revoked_at is None and link.kind in kinds else None


async def resolve(session: AsyncSession, token: str, kinds: Collection[str]) -> JobShare:
    """The live link of one of `kinds` for `token`; 404 (same message) when unknown, revoked or of
    another kind (a capture's token opens nothing at /api/public/shares)."""
    link = await live_link(session, token, kinds)
    if link is None:
        raise not_found("share link", "(unknown or revoked)")
    return link
