"""Routes derived from a JobKind (execution/kinds.py `api_path`, `api_name`, `label`) instead of
written per kind: its cancel and its share link with the owner check (`cancel_route`,
`share_route`, `shared_job`), its event stream
(api/streaming.py), the job looked up by the ids of its path (`job_or_404`) and an endpoint whose
path parameters are the kind's own names (`endpoint_for`: "search_id", "capture_id" and "check_id"),
so the derived routes keep the paths, parameter names and operation ids the API always had
(frontend/src/client is generated from them)."""

import inspect
import re
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.db import SessionDep
from upgradelab.errors import not_found
from upgradelab.execution.cancel_request import request_cancel
from upgradelab.execution.kinds import JobKind
from upgradelab.sharing import service as shares
from upgradelab.users.auth import CurrentUser, require_owner
from upgradelab.users.models import User
from upgradelab.users.tokens import shown_once

_PARAMETER = re.compile(r"\{(\w+)\}")


def path_ids(kind: JobKind) -> list[str]:
    """The path parameters of the kind's resource, its own id last (["capture_id", "check_id"])."""
    return _PARAMETER.findall(kind.api_path)


async def job_or_404(session: AsyncSession, kind: JobKind, ids: dict[str, int]) -> Any:
    """The job row whose path ids are `ids` (path_ids: the last is its id; any other must equal the
    row's column of that name, a check's capture_id); 404 naming the kind and id otherwise."""
    *parents, own = path_ids(kind)
    row = await session.get(kind.lease.model, ids[own])
    if row is None or any(getattr(row, name) != ids[name] for name in parents):
        raise not_found(kind.title, ids[own])
    return row


def keyword(name: str, annotation: Any, default: Any = inspect.Parameter.empty) -> inspect.Parameter:
    """A keyword parameter of a derived endpoint (endpoint_for): FastAPI reads its annotation
    (a dependency, a type) and default (Query, Header) as if written in a def."""
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)


def endpoint_for(
    kind: JobKind,
    extra: list[inspect.Parameter],
    body: Callable[..., Awaitable[Any]],
    name: str,
    doc: str,
) -> Callable[..., Awaitable[Any]]:
    """An endpoint FastAPI reads as `async def <name>(<path ids: int>, *extra)`: it calls
    `body(ids, **extra values)` with the path ids as a dict (job_or_404 takes it)."""
    ids = path_ids(kind)

    async def endpoint(**values: Any) -> Any:
        return await body({key: values.pop(key) for key in ids}, **values)

    params = [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, annotation=int) for key in ids]
    endpoint.__signature__ = inspect.Signature(params + extra)  # type: ignore[attr-defined]
    endpoint.__name__ = endpoint.__qualname__ = name
    endpoint.__doc__ = doc
    return endpoint


def cancel_route(
    router: APIRouter,
    kind: JobKind,
    response_model: Any,
    cancel: Callable[[AsyncSession, Any], Awaitable[Any]] | None = None,
) -> Callable[[Callable[[AsyncSession, Any], Awaitable[Any]]], None]:
    """Decorates `async def cancel_<kind>(session, row) -> Read` (the job as its API reads it after
    the cancel; its name is the operation's id, its docstring the route's description) into POST
    <kind.api_path>/cancel on `router` (whose prefix the path starts with): the job (404), its owner
    checked (users/auth.py require_owner: 403 unless the caller started it or is an admin, naming
    "<label> <id>"), then `cancel(session, row)` (default: execution/cancel_request.py
    request_cancel, the same for every kind, 409 when it already ended; then the row re-read)."""
    own = path_ids(kind)[-1]

    def derive(read: Callable[[AsyncSession, Any], Awaitable[Any]]) -> None:
        async def body(ids: dict[str, int], session: AsyncSession, user: User) -> Any:
            row = await job_or_404(session, kind, ids)
            require_owner(user, row.created_by, f"{kind.title} {ids[own]}", "cancel")
            if cancel is not None:
                row = await cancel(session, row)
            else:
                await request_cancel(session, kind, row.id)
                await session.refresh(row)
            return await read(session, row)

        extra = [keyword("session", SessionDep), keyword("user", CurrentUser)]
        endpoint = endpoint_for(kind, extra, body, read.__name__, read.__doc__ or "")
        path = kind.api_path.removeprefix(router.prefix) + "/cancel"
        router.add_api_route(path, endpoint, methods=["POST"], response_model=response_model)

    return derive


def share_route(
    router: APIRouter, kind: JobKind, response_model: Any
) -> Callable[[Callable[[AsyncSession, Any], Awaitable[Any]]], None]:
    """Decorates `async def share_<kind>(session, row) -> Read` (its name the operation's id, its
    docstring the description) into POST <kind.api_path>/share: the job (404), its owner checked
    (403 naming "<label> <id>"), a new read-only link in `job_share` (sharing/service.py share_job:
    a token of 192 random bits stored as its sha256; the job's earlier link revoked, it stops
    working), and the row as `read` gives it (its `shared` re-read) with the token shown this once
    (users/tokens.py shown_once). `shared_job` finds the row of a token; DELETE /api/shares/{id}
    (api/sharing.py) revokes a link of any kind."""
    own = path_ids(kind)[-1]

    def derive(read: Callable[[AsyncSession, Any], Awaitable[Any]]) -> None:
        async def body(ids: dict[str, int], session: AsyncSession, user: User) -> Any:
            row = await job_or_404(session, kind, ids)
            require_owner(user, row.created_by, f"{kind.title} {ids[own]}", "share")
            token = await shares.share_job(session, kind.name, row.id, user.id)
            await session.refresh(row)
            return shown_once(await read(session, row), token)

        extra = [keyword("session", SessionDep), keyword("user", CurrentUser)]
        endpoint = endpoint_for(kind, extra, body, read.__name__, read.__doc__ or "")
        path = kind.api_path.removeprefix(router.prefix) + "/share"
        router.add_api_route(path, endpoint, methods=["POST"], response_model=response_model)

    return derive


async def unshare(session: AsyncSession, kind: JobKind, row: Any) -> Any:
    """Revoke every live link of the `kind` job `row` (sharing/service.py revoke_job: they answer 404
    at once; none: nothing) and give the row back with its `shared` re-read. The caller checked the
    owner (a kind's own DELETE .../share; DELETE /api/shares/{id} revokes one link of any kind)."""
    await shares.revoke_job(session, kind.name, row.id)
    await session.refresh(row)
    return row


async def shared_job(session: AsyncSession, kind: JobKind, token: str) -> Any:
    """The job of `kind` shared under `token` (a live `job_share` link of that kind: its sha256), or
    404 ("shared <label>", the same for an unknown, a revoked and another kind's token)."""
    link = await shares.live_link(session, token, (kind.name,))
    row = await session.get(kind.lease.model, link.job_id) if link is not None else None
    if row is None:
        raise not_found(f"shared {kind.title}", "link")
    return row
