"""The API's side: a job's Redis Stream as Server-Sent Events (sse-starlette dicts), from a cursor.

Every job kind's SSE endpoint (api/streaming.py: runs, replays, attributions) reads through here:

    cursor = await last_entry_id(redis, "replay", 3)     # before the database snapshot (the seam)
    async for event in tail(redis, "replay", 3, cursor, FINAL, status_now):
        yield event

`tail` sends each entry after `cursor` as {"event": its type, "id": its entry id, "data": its JSON}
and ends after a status event whose status is final. When the stream stays silent for a block
(_BLOCK_MS), the database has the last word: a job final there (its stream expired, lost in a Redis
restart, or a final status never published: a cancel while queued) gets that status as a last event.
"""

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from typing import Any, cast

from redis.asyncio import Redis

from upgradelab.settings import get_settings
from upgradelab.streaming.keys import stream_key

# one XREAD waits at most this long for the next entry, then the database is asked
_BLOCK_MS = 5000


def connect() -> Redis:
    """A client for one viewer's stream; every read waits at most the XREAD block plus 5 s (issue 30:
    every connection bounded). The caller closes it (`aclose`)."""
    return Redis.from_url(
        get_settings().redis_url,
        decode_responses=True,
        socket_connect_timeout=5,
        socket_timeout=_BLOCK_MS / 1000 + 5,
    )


async def last_entry_id(redis: Redis, kind: str, job_id: int) -> str:
    """The id of the stream's last entry, "0-0" when it has none (read before a snapshot: every
    entry up to it is already in the database, the worker publishing after its commit)."""
    last = cast(list[Any], await redis.xrevrange(stream_key(job_id, kind), count=1))
    return str(last[0][0]) if last else "0-0"


async def tail(
    redis: Redis,
    kind: str,
    job_id: int,
    cursor: str,
    final: Collection[str],
    status_now: Callable[[], Awaitable[str | None]],
    repeated: Callable[[dict[str, Any]], bool] = lambda event: False,
) -> AsyncIterator[dict[str, Any]]:
    """The entries of job `job_id`'s stream after `cursor`, as SSE dicts, until a status in `final`.

    status_now(): the job's status in the database (None: gone), asked after a silent block;
    repeated(event): True for an entry the viewer already holds (a run's iteration in its snapshot,
    or one the worker's retry added twice): sent as an id-only `cursor` event.
    """
    key = stream_key(job_id, kind)
    while True:
        batch = cast(list[Any], await redis.xread({key: cursor}, block=_BLOCK_MS, count=1000))
        if not batch:
            status = await status_now()
            if status is None or status in final:
                data = {"type": "status", "status": status}
                yield {"event": "status", "data": json.dumps(data)}
                return
            continue
        for entry_id, fields in batch[0][1]:
            cursor = str(entry_id)
            event = json.loads(fields["data"])
            if repeated(event):
                yield {"event": "cursor", "id": entry_id, "data": "{}"}
                continue
            yield {"event": event["type"], "id": entry_id, "data": fields["data"]}
            if event["type"] == "status" and event.get("status") in final:
                return
