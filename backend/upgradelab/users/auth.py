"""Who is asking: the session cookie or `Authorization: Bearer <token>`, and what their role allows.

GET/HEAD needs viewer; other methods need operator; /api/users, target changes and datasets taken
from a path on the lab's machine (`POST /api/datasets/{name}/from-path`) need admin. Beyond the role,
an operator cancels, deletes and revokes only what they created (`require_owner`); an admin any.
"""

from typing import Annotated, Protocol

from fastapi import Depends, HTTPException, Request, status
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.db import SessionDep
from upgradelab.users import service
from upgradelab.users.models import Role, User
from upgradelab.users.tokens import Read

COOKIE = "upgradelab_session"


def request_token(request: Request) -> str | None:
    """The bearer token, else the session cookie, else None."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value:
        return value.strip()
    return request.cookies.get(COOKIE)


async def current_user(request: Request, session: SessionDep) -> User:
    """The signed-in user; 401 without a valid token."""
    token = request_token(request)
    user = await service.user_for_token(session, token) if token else None
    if user is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, "sign in first", headers={"WWW-Authenticate": "Bearer"}
        )
    return user


CurrentUser = Annotated[User, Depends(current_user)]


def required_role(method: str, path: str) -> Role:
    """The least role a request needs (see the module docstring)."""
    if path.startswith("/api/users"):
        return Role.admin
    if method in {"GET", "HEAD", "OPTIONS"}:
        return Role.viewer
    if path.startswith("/api/targets"):
        return Role.admin
    if path.startswith("/api/datasets/") and path.rstrip("/").endswith("/from-path"):
        return Role.admin  # reads files on the lab's machine (datasets/service.py create_from_path)
    return Role.operator


async def authorize(request: Request, user: CurrentUser) -> User:
    """Router dependency: 403 when the user's role is below what the request needs."""
    needed = required_role(request.method, request.url.path)
    if user.role.rank < needed.rank:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, f"needs role {needed.value}, you are {user.role.value}"
        )
    return user


def require_owner(user: User, owner_id: int | None, what: str, action: str) -> None:
    """403 unless `user` created the object (`owner_id`, its `created_by`) or is an admin: the one
    check every cancel, delete and revoke endpoint makes. `what` names the object ("run 12"),
    `action` the verb ("cancel"), both said in the message. An object without a recorded owner (from
    before owners were recorded, or made by the lab itself, such as an attribution's step runs) is
    an admin's alone."""
    if user.role == Role.admin or (owner_id is not None and owner_id == user.id):
        return
    whose = "belongs to another user" if owner_id is not None else "has no recorded owner"
    raise HTTPException(
        status.HTTP_403_FORBIDDEN, f"{what} {whose}; only its owner or an admin may {action} it"
    )


def sees_share_tokens(user: User) -> bool:
    """Whether share tokens (share links, an attribution's share_token) are shown to `user`: not to
    viewers. A token opens a result to anyone without signing in; a viewer may read every result but
    not create a link (POST needs operator), so handing one on would be doing what the role forbids."""
    return user.role.rank >= Role.operator.rank


def token_for(read: Read, user: User | None) -> Read:
    """`read` (a shareable job's API shape) as `user` may see it: its share_token (set only in the
    answer that made the link) kept for whom sees_share_tokens, None for a viewer and for a share
    link's holder (`user` None)."""
    if user is None or not sees_share_tokens(user):
        read.share_token = None
    return read


class Owned(Protocol):
    """A record with an owner: run, replay_run, attribution, fix_search, dataset, share_link."""

    created_by: int | None


async def stamp_owner(session: AsyncSession, record: Owned, user: User) -> None:
    """Record `user` as the creator of a record a service just stored (its create verbs know no
    users; the API does)."""
    record.created_by = user.id
    await session.commit()
