"""Who is asking: the session cookie or `Authorization: Bearer <token>`, and what their role allows.

GET/HEAD needs viewer; other methods need operator; /api/users, target changes and datasets taken
from a path on the lab's machine (`POST /api/datasets/{name}/from-path`) need admin.
"""

from typing import Annotated

from fastapi import Depends, HTTPException, Request, status

from upgradelab.db import SessionDep
from upgradelab.users import service
from upgradelab.users.models import Role, User

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
