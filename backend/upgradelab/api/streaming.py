"""GET /api/{runs,replays,attributions,fixsearches,captures}/{id}/events: a job's progress as
Server-Sent Events, resumable by Last-Event-ID; every kind read from its Redis Stream by
streaming/reader.py.

Who may watch: the signed-in users, viewers included (GET needs viewer, users/auth.py); 401 without
a session or token. A share link's token opens no stream (share pages read the stored result).

Without Last-Event-ID the viewer first gets a `snapshot`, then the live tail of the job's stream.
The seam has no gap and no duplicate: the stream's last entry id L is read *before* the database,
and the worker appends to the stream only after its commit, so everything up to L is in the
snapshot. With Last-Event-ID (header, or `last_event_id` query for a hand-made reconnect) the viewer
gets exactly the entries after that id. The stream ends after a final status (a job already final
gets its snapshot only). A comment heartbeat every 10 s. Data is JSON:

- a run: snapshot {run, points: [[variant_index, iteration, elapsed_s], ...]}; iteration
  {variant_index, variant, iteration, round, elapsed_s, published_at}; status {status?,
  current_variant?, error?, progress?}; cursor {} (an entry the snapshot already holds: it moves the
  browser's Last-Event-ID without repeating data).
- a replay: snapshot {status, progress}; status {status?, error?, progress?} (progress: the
  variant, its index of the variants, the phase: starting, loading (rows, bytes), capturing, round
  n of m; replay/schemas.py ReplayProgress); schedule {rounds, max_rounds} (the rounds planned, more
  once the extension adds some); report {partial}.
- an attribution: snapshot {status, progress}; status {status?, error?, progress?} (attribution
  progress: phase, runs_done, runs_budget, minutes, current_run_id, message); step {step, run_id,
  phase, state: "started" | "finished"} (one step run of the search).
- a fix search: snapshot {status, progress}; status {status?, error?, progress?} (progress: phase,
  candidates tried, rounds_done, minutes, message; fixsearch/schemas.py FixSearchProgress).
- a capture: snapshot {status, progress}; status {status?, error?, progress?} (progress: phase
  connecting, defaults, accounts, workload, done, and a message; captures/schemas.py CaptureProgress).
"""

import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from typing import Any

from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request
from pydantic_core import to_jsonable_python
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sse_starlette import EventSourceResponse

from upgradelab.attribution import service as attributions
from upgradelab.captures import service as captures
from upgradelab.db import SessionDep, async_engine
from upgradelab.errors import field_error
from upgradelab.execution.status import FINAL_STATUSES
from upgradelab.experiments.models import Run
from upgradelab.fixsearch import service as fixsearches
from upgradelab.replay import service as replays
from upgradelab.results.store.models import Iteration
from upgradelab.runs import service as runs
from upgradelab.streaming.reader import connect, last_entry_id, tail
from upgradelab.users.auth import authorize

HEARTBEAT_S = 10

router = APIRouter(tags=["streaming"], dependencies=[Depends(authorize)])

ResumeHeader = Header(None, alias="Last-Event-ID")
ResumeQuery = Query(None, pattern=r"^\d+-\d+$", description="Resume after this entry.")


@router.get("/api/runs/{run_id}/events")
async def run_events(
    run_id: int,
    request: Request,
    session: SessionDep,
    last_event_id_header: str | None = ResumeHeader,
    last_event_id: str | None = ResumeQuery,
) -> EventSourceResponse:
    """Server-Sent Events of run `run_id` (see the module docstring); 404 for an unknown run."""
    await runs.get_or_raise(session, run_id)
    await session.close()  # the stream may last hours: hold no database connection
    resume = _resume(last_event_id_header, last_event_id)
    return EventSourceResponse(_run_events(run_id, resume), ping=HEARTBEAT_S)


@router.get("/api/replays/{replay_id}/events")
async def replay_events(
    replay_id: int,
    session: SessionDep,
    last_event_id_header: str | None = ResumeHeader,
    last_event_id: str | None = ResumeQuery,
) -> EventSourceResponse:
    """Server-Sent Events of replay `replay_id` (see the module docstring); 404 for an unknown one."""
    await replays.get_or_raise(session, replay_id)
    await session.close()
    resume = _resume(last_event_id_header, last_event_id)
    state = _Job(replays.get_or_raise, replay_id)
    events = _job_events("replay", replay_id, resume, FINAL_STATUSES, state)
    return EventSourceResponse(events, ping=HEARTBEAT_S)


@router.get("/api/attributions/{attribution_id}/events")
async def attribution_events(
    attribution_id: int,
    session: SessionDep,
    last_event_id_header: str | None = ResumeHeader,
    last_event_id: str | None = ResumeQuery,
) -> EventSourceResponse:
    """Server-Sent Events of attribution `attribution_id` (see the module docstring); 404 for an
    unknown one."""
    await attributions.get_or_raise(session, attribution_id)
    await session.close()
    resume = _resume(last_event_id_header, last_event_id)
    state = _Job(attributions.get_or_raise, attribution_id)
    events = _job_events("attribution", attribution_id, resume, FINAL_STATUSES, state)
    return EventSourceResponse(events, ping=HEARTBEAT_S)


@router.get("/api/fixsearches/{search_id}/events")
async def fix_search_events(
    search_id: int,
    session: SessionDep,
    last_event_id_header: str | None = ResumeHeader,
    last_event_id: str | None = ResumeQuery,
) -> EventSourceResponse:
    """Server-Sent Events of fix search `search_id` (see the module docstring); 404 for an unknown one."""
    await fixsearches.get_or_raise(session, search_id)
    await session.close()
    resume = _resume(last_event_id_header, last_event_id)
    state = _Job(fixsearches.get_or_raise, search_id)
    events = _job_events("fixsearch", search_id, resume, FINAL_STATUSES, state)
    return EventSourceResponse(events, ping=HEARTBEAT_S)


@router.get("/api/captures/{capture_id}/events")
async def capture_events(
    capture_id: int,
    session: SessionDep,
    last_event_id_header: str | None = ResumeHeader,
    last_event_id: str | None = ResumeQuery,
) -> EventSourceResponse:
    """Server-Sent Events of capture `capture_id` (see the module docstring); 404 for an unknown one."""
    await captures.get_or_raise(session, capture_id)
    await session.close()
    resume = _resume(last_event_id_header, last_event_id)
    state = _Job(captures.get_or_raise, capture_id)
    events = _job_events("capture", capture_id, resume, FINAL_STATUSES, state)
    return EventSourceResponse(events, ping=HEARTBEAT_S)


_ENTRY_ID = re.compile(r"^(\d{1,20})-(\d{1,20})$")


def _resume(header: str | None, query: str | None) -> str | None:
    """The entry id to resume after (the header first); 422 naming the field for one Redis would
    refuse (both parts below 2^64), which would otherwise break the stream mid-way."""
    places: list[tuple[str | None, list[str | int]]] = [
        (header, ["header", "Last-Event-ID"]),
        (query, ["query", "last_event_id"]),
    ]
    for value, where in places:
        match = _ENTRY_ID.match(value) if value is not None else None
        if value is not None and (match is None or any(int(p) >= 2**64 for p in match.groups())):
            raise field_error(where, "a stream entry id <milliseconds>-<sequence>")
    return header or query


async def _run_events(run_id: int, resume_from: str | None) -> AsyncIterator[dict[str, Any]]:
    redis = connect()
    try:
        covered: set[tuple[int, int]] = set()
        if resume_from is None:
            cursor = await last_entry_id(redis, "run", run_id)
            snapshot, final = await _run_snapshot(run_id)
            covered = {(p[0], p[1]) for p in snapshot["points"]}
            yield {"event": "snapshot", "id": cursor, "data": json.dumps(snapshot)}
            if final:
                return
        else:
            cursor = resume_from

        def repeated(event: dict[str, Any]) -> bool:
            """An iteration in the snapshot, or an entry the worker's retry repeated."""
            if event["type"] != "iteration":
                return False
            point = (event["variant_index"], event["iteration"])
            seen = point in covered
            covered.add(point)
            return seen

        status = lambda: _run_status(run_id)  # noqa: E731
        async for one in tail(redis, "run", run_id, cursor, FINAL_STATUSES, status, repeated):
            yield one
    finally:
        await redis.aclose()


async def _run_snapshot(run_id: int) -> tuple[dict[str, Any], bool]:
    """The run and its stored iterations (seconds, summed per iteration); and whether it is final."""
    async with _sessions()() as session:
        run = await runs.get_or_raise(session, run_id)
        rows = await session.execute(
            select(Iteration.variant_index, Iteration.iteration, Iteration.elapsed_s)
            .where(Iteration.run_id == run_id)
            .order_by(Iteration.variant_index, Iteration.iteration)
        )
        points = [[v, i, float(s)] for v, i, s in rows.tuples()]
        [read] = await runs.to_read(session, [run])
    return {"run": read.model_dump(mode="json"), "points": points}, run.status.is_final


async def _run_status(run_id: int) -> str | None:
    async with _sessions()() as session:
        status = await session.scalar(select(Run.status).where(Run.id == run_id))
    return None if status is None else str(status)


class _Job:
    """A replay's or an attribution's status and progress, read from the database in a session of
    its own each time (the stream holds no connection between reads); None when the row is gone."""

    def __init__(self, get: Callable[[AsyncSession, int], Awaitable[Any]], job_id: int) -> None:
        self._get, self._job_id = get, job_id

    async def snapshot(self) -> dict[str, Any] | None:
        async with _sessions()() as session:
            try:
                row = await self._get(session, self._job_id)
            except HTTPException:  # the 404 of a row deleted since the request began
                return None
            # progress is a typed stored value (db.ModelJSON) or a plain dict: its JSON either way
            return {"status": str(row.status), "progress": to_jsonable_python(row.progress)}

    async def status(self) -> str | None:
        found = await self.snapshot()
        return None if found is None else found["status"]


async def _job_events(
    kind: str, job_id: int, resume_from: str | None, final: Collection[str], job: _Job
) -> AsyncIterator[dict[str, Any]]:
    """A replay's or an attribution's events (the module docstring): snapshot {status, progress},
    then its stream's tail."""
    redis = connect()
    try:
        cursor = resume_from
        if cursor is None:
            cursor = await last_entry_id(redis, kind, job_id)
            snapshot = await job.snapshot()
            if snapshot is None:
                return
            yield {"event": "snapshot", "id": cursor, "data": json.dumps(snapshot)}
            if snapshot["status"] in final:
                return
        async for one in tail(redis, kind, job_id, cursor, final, job.status):
            yield one
    finally:
        await redis.aclose()


def _sessions() -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(async_engine(), expire_on_commit=False)
