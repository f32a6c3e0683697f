"""Limits before work: a request body is bounded per route and its sender signed in before a byte of
it is read (issue 44: a 200 MB anonymous JSON body was read and parsed before the 401, holding
679 MB of the API's memory).

A pure ASGI middleware (`BodyLimits`, outermost but for Starlette's error handler), so nothing of the
app, FastAPI's body parsing included, runs before it decides:

1. The route's limit (`limit_for`): sign-in and logout `body_sign_in_max_bytes` (16 KiB), a replay
   or a concurrent replay (its query log) `body_replay_max_bytes` (128 MiB: a 100,000-statement
   slow log, the most a replay takes, is ~30 MB), a dataset's dump upload (PUT
   /api/datasets/{name}, a capture's PUT /api/captures/{id}/dataset) the upload's own bound
   (datasets/service.py MAX_BYTES, 20 GiB, streamed to disk, never held), every other route
   `body_max_bytes` (1 MiB). A Content-Length past it is answered 413 at once, naming the limit and
   its setting.
2. A body on a signed-in route (every /api/ path but sign-in, logout and the public share links)
   needs a valid credential first: a user's token (bearer or session cookie) or the worker credential,
   else 401 at once; the role and the owner are still checked by the route (users/auth.py).
3. A body without a Content-Length (chunked) is counted as it streams: past the limit the app's read
   raises a 413 (FastAPI passes an HTTPException from the body read through), and nothing more is read.

Both early answers close the connection (`connection: close`): the unread body is never drained.
"""

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker

from upgradelab.datasets.service import MAX_BYTES as UPLOAD_MAX_BYTES
from upgradelab.db import async_engine
from upgradelab.pools.credential import is_worker_token
from upgradelab.settings import Settings, get_settings
from upgradelab.users.auth import COOKIE
from upgradelab.users.service import user_for_token

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class RouteLimit:
    """A route's body bound: `methods` and `path` (a regular expression) it applies to, the `setting`
    giving the bound (a Settings field, or '' with `fixed` bytes) and whether the route is open
    without signing in (`anonymous`)."""

    methods: frozenset[str]
    path: re.Pattern[str]
    setting: str
    fixed: int = 0
    anonymous: bool = False

    def limit(self, settings: Settings) -> int:
        """The bound in bytes."""
        return int(getattr(settings, self.setting)) if self.setting else self.fixed


_WRITE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
ROUTES = (
    RouteLimit(_WRITE, re.compile(r"^/api/auth/(login|logout)$"), "body_sign_in_max_bytes", anonymous=True),
    RouteLimit(frozenset({"POST"}), re.compile(r"^/api/replays$"), "body_replay_max_bytes"),
    RouteLimit(frozenset({"POST"}), re.compile(r"^/api/concurrent-replays$"), "body_replay_max_bytes"),
    RouteLimit(frozenset({"PUT"}), re.compile(r"^/api/datasets/[^/]+$"), "", fixed=UPLOAD_MAX_BYTES),
    RouteLimit(frozenset({"PUT"}), re.compile(r"^/api/captures/\d+/dataset$"), "", fixed=UPLOAD_MAX_BYTES),
)


def limit_for(method: str, path: str, settings: Settings) -> tuple[int, str, bool]:
    """(the body bound in bytes, the setting naming it ('' for a fixed one), whether a body may come
    without signing in) of a request; the default for a route not in ROUTES is `body_max_bytes`,
    signed in on /api/ (but /api/public/) and open elsewhere."""
    for route in ROUTES:
        if method in route.methods and route.path.match(path):
            return route.limit(settings), route.setting, route.anonymous
    anonymous = not path.startswith("/api/") or path.startswith("/api/public/")
    return settings.body_max_bytes, "body_max_bytes", anonymous


class BodyLimits:
    """The ASGI middleware (module docstring). `settings` default: get_settings() at first request."""

    def __init__(self, app: ASGIApp, settings: Settings | None = None) -> None:
        self.app = app
        self._settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        settings = self._settings or get_settings()
        method, path = scope["method"], scope["path"]
        headers = _headers(scope)
        length = headers.get("content-length")
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        if length is None and not chunked:  # no body
            await self.app(scope, receive, send)
            return
        limit, setting, anonymous = limit_for(method, path, settings)
        named = f" (UPGRADELAB_{setting.upper()})" if setting else ""
        too_large = f"body: over {limit} bytes, the limit of {method} {path}{named}"
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _answer(send, 413, too_large if length.isdigit() else "body: a bad Content-Length")
            return
        if not anonymous and (length is None or int(length) > 0) and not await _signed_in(headers):
            await _answer(send, 401, "sign in first", {"www-authenticate": "Bearer"})
            return
        await self.app(scope, _counted(receive, limit, too_large), send)


def _counted(receive: Receive, limit: int, too_large: str) -> Receive:
    """`receive` counting the body's bytes; an HTTPException 413 once past `limit` (FastAPI re-raises
    an HTTPException from its body read, the app's handler answers it)."""
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                from fastapi import HTTPException

                raise HTTPException(413, too_large, headers={"connection": "close"})
        return message

    return counted


async def _signed_in(headers: dict[str, str]) -> bool:
    """Whether the request shows a live user token (bearer, else the session cookie) or the worker
    credential; one indexed lookup of the token's sha256."""
    scheme, _, value = headers.get("authorization", "").partition(" ")
    token = value.strip() if scheme.lower() == "bearer" and value else _cookie(headers.get("cookie", ""))
    if not token:
        return False
    if is_worker_token(token):
        return True
    async with async_sessionmaker(async_engine(), expire_on_commit=False)() as session:
        return await user_for_token(session, token) is not None


def _cookie(header: str) -> str | None:
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE and value:
            return value
    return None


def _headers(scope: Scope) -> dict[str, str]:
    return {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}


async def _answer(send: Send, status: int, detail: str, extra: dict[str, str] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *((name.encode(), value.encode()) for name, value in (extra or {}).items()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
