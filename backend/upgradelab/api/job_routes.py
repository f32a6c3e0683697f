"""Routes derived from a JobKind (execution/kinds.py `api_path`, `api_name`, `label`) instead of
written per kind: its list, get and export (`list_route`, `get_route`, `export_route`: every
signed-in user reads), its cancel and its share link with the owner check (`cancel_route`,
`share_route`, `shared_job`), its event stream
(api/streaming.py), the job looked up by the ids of its path (`job_or_404`) and an endpoint whose
path parameters are the kind's own names (`endpoint_for`: "search_id", "capture_id" and "check_id"),
so the derived routes keep the paths, parameter names and operation ids the API always had
(frontend/src/client is generated from them)."""

import inspect
import re
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from fastapi import APIRouter, Query, Response
from sqlalchemy import select
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
    ids: list[str] | None = None,
) -> Callable[..., Awaitable[Any]]:
    """An endpoint FastAPI reads as `async def <name>(<path ids: int>, *extra)`: it calls
    `body(ids, **extra values)` with the path ids as a dict (job_or_404 takes it). `ids`: the path
    ids when not the kind's own (a list's: all but its own id)."""
    ids = path_ids(kind) if ids is None else ids

    async def endpoint(**values: Any) -> Any:
        return await body({key: values.pop(key) for key in ids}, **values)

    params = [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, annotation=int) for key in ids]
    endpoint.__signature__ = inspect.Signature(params + extra)  # type: ignore[attr-defined]
    endpoint.__name__ = endpoint.__qualname__ = name
    endpoint.__doc__ = doc
    return endpoint


Read = Callable[[AsyncSession, Any, User], Awaitable[Any]]
"""A kind's read hook, `async def <operation>(session, row, user) -> Read`: the row as the API shows
it to `user` (its extras: a replay's fix-search briefs; a viewer's read without the share token)."""

Format = Literal["csv", "json"]
Export = Callable[[AsyncSession, Any, Format, User | None], Awaitable[str | Response]]
"""A kind's export hook, `async def export_<kind>(session, row, format, user) -> str | Response`: the
body of the export in `format` for `user` (None: a share link's holder), or a whole Response (a
refusal: a replay without a report is a 409)."""
Exported = Callable[[AsyncSession, Any, Format, User | None], Awaitable[Response]]
"""An export as a whole (export_route's result): the attachment, for a share link's export too."""

LIMIT = Query(50, ge=1, le=500)
"""The `limit` query parameter most lists take (newest 50, at most 500)."""


def _add(
    router: APIRouter,
    kind: JobKind,
    path: str,
    extra: list[inspect.Parameter],
    body: Callable[..., Awaitable[Any]],
    hook: Callable[..., Any],
    method: str = "GET",
    response_model: Any = None,
    ids: list[str] | None = None,
) -> None:
    """Add `body` as `method path` (relative to `router`'s prefix) named and described by `hook`."""
    endpoint = endpoint_for(kind, extra, body, hook.__name__, hook.__doc__ or "", ids)
    router.add_api_route(
        path.removeprefix(router.prefix), endpoint, methods=[method], response_model=response_model
    )


def get_route(router: APIRouter, kind: JobKind, response_model: Any) -> Callable[[Read], Read]:
    """Decorates `async def get_<kind>(session, row, user) -> Read` (its name the operation's id, its
    docstring the description) into GET <kind.api_path> on `router`: the job by its path ids
    (job_or_404: 404 "<label> <id> not found", a check of another capture too), read by the hook
    for the signed-in `user`. Returns the hook unchanged."""

    def derive(read: Read) -> Read:
        async def body(ids: dict[str, int], session: AsyncSession, user: User) -> Any:
            return await read(session, await job_or_404(session, kind, ids), user)

        extra = [keyword("session", SessionDep), keyword("user", CurrentUser)]
        _add(router, kind, kind.api_path, extra, body, read, response_model=response_model)
        return read

    return derive


def list_route(
    router: APIRouter,
    kind: JobKind,
    response_model: Any,
    *,
    by: dict[str, type] | None = None,
    limit: Any = LIMIT,
    parent: JobKind | None = None,
) -> Callable[[Read], Read]:
    """Decorates `async def list_<kinds>(session, row, user) -> Item` (one row's item; its name the
    operation's id, its docstring the description) into GET <kind.api_path without its own id> on
    `router`, answering list[response_model]: the kind's rows newest first (by id); only those whose
    column equals each `by` query parameter given (`{"run_id": int}`: `?run_id=` optional); at most
    `limit` (a Query: the `limit` parameter, LIMIT by default; an int: a fixed bound; None: all).
    `parent`: the kind of the path's other ids (a check's capture): 404 unless it exists, and only
    its rows. Returns the hook unchanged."""
    *parents, _ = path_ids(kind)
    path = kind.api_path.rsplit("/", 1)[0]
    model: Any = kind.lease.model
    filters = list(by or {})

    def derive(item: Read) -> Read:
        async def body(ids: dict[str, int], session: AsyncSession, user: User, **query: Any) -> list[Any]:
            if parent is not None:
                await job_or_404(session, parent, ids)
            bound = query.pop("limit", limit if isinstance(limit, int) else None)
            select_rows = select(model).order_by(model.id.desc()).limit(bound)
            for name, value in [*ids.items(), *((name, query[name]) for name in filters)]:
                if value is not None:
                    select_rows = select_rows.where(getattr(model, name) == value)
            return [await item(session, row, user) for row in await session.scalars(select_rows)]

        extra = [keyword("session", SessionDep), keyword("user", CurrentUser)]
        extra += [keyword(name, kind_of | None, None) for name, kind_of in (by or {}).items()]
        if limit is not None and not isinstance(limit, int):
            extra.append(keyword("limit", int, limit))
        _add(router, kind, path, extra, body, item, response_model=list[response_model], ids=parents)
        return item

    return derive


def attachment(name: str, format: Format, body: str | Response) -> Response:
    """`body` as a download named `name`.<format> (text/csv or application/json); a Response as it is."""
    if isinstance(body, Response):
        return body
    media = "text/csv" if format == "csv" else "application/json"
    return Response(
        body, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}.{format}"'}
    )


def export_route(router: APIRouter, kind: JobKind, filename: str) -> Callable[[Export], Exported]:
    """Decorates `async def export_<kind>(session, row, format, user) -> str | Response` (its name
    the operation's id, its docstring the description) into GET <kind.api_path>/export?format=csv|json
    (default json) on `router`: the job (404 as get_route), its export as an attachment named
    "<filename>-<id>.<format>" (attachment). Returns the export as a whole, `async (session, row,
    format, user) -> Response`, for a share link's export (user None)."""

    def derive(export: Export) -> Exported:
        async def whole(session: AsyncSession, row: Any, format: Format, user: User | None) -> Response:
            return attachment(f"{filename}-{row.id}", format, await export(session, row, format, user))

        async def body(ids: dict[str, int], session: AsyncSession, user: User, format: Format) -> Response:
            return await whole(session, await job_or_404(session, kind, ids), format, user)

        extra = [
            keyword("session", SessionDep),
            keyword("user", CurrentUser),
            keyword("format", Format, "json"),
        ]
        _add(router, kind, kind.api_path + "/export", extra, body, export)
        return whole

    return derive


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
