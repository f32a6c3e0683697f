"""GET /api/runs/{id}/events: a run's live results as Server-Sent Events, resumable by Last-Event-ID.

Without Last-Event-ID the viewer first gets a `snapshot` (the stored iterations, from the database),
then the live tail of the run's Redis Stream. The seam has no gap and no duplicate: the stream's last
entry id L is read *before* the database, and the worker appends to the stream only after its commit,
so every entry up to L is in the snapshot; entries after L that the snapshot already holds are sent
as id-only `cursor` events (they move the browser's Last-Event-ID without repeating data).
With Last-Event-ID (header, or `last_event_id` query for a hand-made reconnect) the viewer gets
exactly the entries after that id.

Event types (data is JSON): snapshot {run, points: [[variant_index, iteration, elapsed_s], ...]},
iteration {variant_index, variant, iteration, elapsed_s, published_at}, status {status?, current_variant?,
error?}, cursor {}. The stream ends after a final status. A comment heartbeat every 10 s.
"""

import json
import re
from collections.abc import AsyncIterator
from typing import Any, cast

from fastapi import APIRouter, Depends, Header, Query, Request
from redis.asyncio import Redis
from sqlalchemy import select
from sse_starlette import EventSourceResponse

from upgradelab.db import SessionDep, async_engine
from upgradelab.errors import field_error
from upgradelab.execution.status import FINAL_STATUSES
from upgradelab.experiments.models import Run
from upgradelab.results.store.models import Iteration
from upgradelab.runs import service as runs
from upgradelab.settings import get_settings
from upgradelab.streaming.keys import stream_key
from upgradelab.users.auth import authorize

HEARTBEAT_S = 10
_BLOCK_MS = 5000

router = APIRouter(prefix="/api/runs", tags=["streaming"], dependencies=[Depends(authorize)])


@router.get("/{run_id}/events")
async def run_events(
    run_id: int,
    request: Request,
    session: SessionDep,
    last_event_id_header: str | None = Header(None, alias="Last-Event-ID"),
    last_event_id: str | None = Query(None, pattern=r"^\d+-\d+$", description="Resume after this entry."),
) -> EventSourceResponse:
    """Server-Sent Events of run `run_id` (see the module docstring); 404 for an unknown run."""
    await runs.get_or_raise(session, run_id)
    await session.close()  # the stream may last hours: hold no database connection
    if last_event_id_header is not None and not _is_entry_id(last_event_id_header):
        raise field_error(["header", "Last-Event-ID"], "a stream entry id <milliseconds>-<sequence>")
    if last_event_id is not None and not _is_entry_id(last_event_id):
        raise field_error(["query", "last_event_id"], "a stream entry id <milliseconds>-<sequence>")
    resume = last_event_id_header or last_event_id
    return EventSourceResponse(_events(run_id, resume), ping=HEARTBEAT_S)


_ENTRY_ID = re.compile(r"^(\d{1,20})-(\d{1,20})$")


def _is_entry_id(text: str) -> bool:
    """A Redis stream entry id Redis itself takes (both parts below 2^64); anything else would
    break the stream mid-way instead of answering 422."""
    match = _ENTRY_ID.match(text)
    return match is not None and all(int(part) < 2**64 for part in match.groups())


async def _events(run_id: int, resume_from: str | None) -> AsyncIterator[dict[str, Any]]:
    # every read waits at most the XREAD block plus 5 s (issue 30: every connection bounded)
    redis = Redis.from_url(
        get_settings().redis_url,
        decode_responses=True,
        socket_connect_timeout=5,
        socket_timeout=_BLOCK_MS / 1000 + 5,
    )
    key = stream_key(run_id)
    try:
        covered: set[tuple[int, int]] = set()
        if resume_from is None:
            last = cast(list[Any], await redis.xrevrange(key, count=1))
            cursor = last[0][0] if last else "0-0"
            snapshot, final = await _snapshot(run_id)
            covered = {(p[0], p[1]) for p in snapshot["points"]}
            yield {"event": "snapshot", "id": cursor, "data": json.dumps(snapshot)}
            if final:
                return
        else:
            cursor = resume_from
        while True:
            batch = cast(list[Any], await redis.xread({key: cursor}, block=_BLOCK_MS, count=1000))
            if not batch:
                status = await _status(run_id)
                if status in FINAL_STATUSES:  # stream expired or lost: the database has the last word
                    yield {"event": "status", "data": json.dumps({"type": "status", "status": status})}
                    return
                continue
            for entry_id, fields in batch[0][1]:
                cursor = str(entry_id)
                event = json.loads(fields["data"])
                if event["type"] == "iteration":
                    point = (event["variant_index"], event["iteration"])
                    if point in covered:  # in the snapshot, or an entry the worker's retry repeated
                        yield {"event": "cursor", "id": entry_id, "data": "{}"}
                        continue
                    covered.add(point)
                yield {"event": event["type"], "id": entry_id, "data": fields["data"]}
                if event["type"] == "status" and event.get("status") in FINAL_STATUSES:
                    return
    finally:
        await redis.aclose()


async def _snapshot(run_id: int) -> tuple[dict[str, Any], bool]:
    """The run and its stored iterations (seconds, summed per iteration); and whether it is final."""
    from sqlalchemy.ext.asyncio import async_sessionmaker

    async with async_sessionmaker(async_engine(), expire_on_commit=False)() as session:
        run = await runs.get_or_raise(session, run_id)
        rows = await session.execute(
            select(Iteration.variant_index, Iteration.iteration, Iteration.elapsed_s)
            .where(Iteration.run_id == run_id)
            .order_by(Iteration.variant_index, Iteration.iteration)
        )
        points = [[v, i, float(s)] for v, i, s in rows.tuples()]
        [read] = await runs.to_read(session, [run])
    return {"run": read.model_dump(mode="json"), "points": points}, run.status.is_final


async def _status(run_id: int) -> str | None:
    from sqlalchemy.ext.asyncio import async_sessionmaker

    async with async_sessionmaker(async_engine())() as session:
        status = await session.scalar(select(Run.status).where(Run.id == run_id))
    return None if status is None else str(status)
