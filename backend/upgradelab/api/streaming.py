"""GET <a job's path>/events for every job kind (job_kinds.py; /api/runs/{run_id}/events,
/api/replays/{replay_id}/events, /api/captures/{capture_id}/checks/{check_id}/events, ...): a job's
progress as Server-Sent Events, resumable by Last-Event-ID; every kind read from its Redis Stream by
streaming/reader.py. Every kind's route is one definition derived from its JobKind
(`_add_events_route`); the run's gives it its own stream (its snapshot holds its points).

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
- a capture check: snapshot {status, progress: null}; status {status, error?} (its final status).
"""

import json
import re
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any

from fastapi import APIRouter, Depends, Header, HTTPException, Query
from pydantic_core import to_jsonable_python
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sse_starlette import EventSourceResponse

from upgradelab.api.job_routes import endpoint_for, job_or_404, keyword, path_ids
from upgradelab.db import SessionDep, async_engine
from upgradelab.errors import field_error
from upgradelab.execution.kinds import JobKind
from upgradelab.execution.status import FINAL_STATUSES
from upgradelab.job_kinds import JOB_KINDS
from upgradelab.results.store.models import Iteration
from upgradelab.runs import service as runs
from upgradelab.runs.models import Run
from upgradelab.streaming.reader import connect, last_entry_id, tail
from upgradelab.users.auth import authorize

HEARTBEAT_S = 10

ResumeHeader = Header(None, alias="Last-Event-ID")
ResumeQuery = Query(None, pattern=r"^\d+-\d+$", description="Resume after this entry.")


def events_router() -> APIRouter:
    """The event stream route of every registered kind (job_kinds.py JOB_KINDS as they are now: the
    app, main.py create_app, includes it once built); the run's with its own stream (_OWN_STREAMS)."""
    out = APIRouter(tags=["streaming"], dependencies=[Depends(authorize)])
    for kind in JOB_KINDS:
        if kind.api_path:
            _add_events_route(out, kind, *_OWN_STREAMS.get(kind.name, (None, None)))
    return out


Stream = Callable[[int, str | None], AsyncIterator[dict[str, Any]]]


def _add_events_route(out: APIRouter, kind: JobKind, stream: Stream | None, doc: str | None) -> None:
    """GET <kind.api_path>/events: snapshot {status, progress}, then its stream's tail (or `stream(id,
    resume)`, a kind's own: the run's snapshot holds its points); 404 for an unknown job. One
    definition, derived from the kind (api/job_routes.py), for every registered kind."""

    async def events(
        ids: dict[str, int],
        session: AsyncSession,
        last_event_id_header: str | None,
        last_event_id: str | None,
    ) -> EventSourceResponse:
        row = await job_or_404(session, kind, ids)
        await session.close()  # the stream may last hours: hold no database connection
        resume = _resume(last_event_id_header, last_event_id)
        if stream is not None:
            return EventSourceResponse(stream(row.id, resume), ping=HEARTBEAT_S)
        events = _job_events(kind.name, row.id, resume, FINAL_STATUSES, _Job(kind, ids))
        return EventSourceResponse(events, ping=HEARTBEAT_S)

    extra = [
        keyword("session", SessionDep),
        keyword("last_event_id_header", str | None, ResumeHeader),
        keyword("last_event_id", str | None, ResumeQuery),
    ]
    own = path_ids(kind)[-1]
    doc = (
        doc
        or f"Server-Sent Events of {kind.title} `{own}` (see the module docstring); 404 for an unknown one."
    )
    endpoint = endpoint_for(kind, extra, events, f"{kind.api_name}_events", doc)
    out.add_api_route(f"{kind.api_path}/events", endpoint, methods=["GET"])


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


_OWN_STREAMS: dict[str, tuple[Stream, str]] = {
    "run": (
        _run_events,
        "Server-Sent Events of run `run_id` (see the module docstring); 404 for an unknown run.",
    )
}
"""A kind's own stream (events_router) and its route's description: the run's snapshot holds its
points and its tail skips iterations the snapshot has."""


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
    """A job's status and progress (none for a kind without progress: a capture check), read from
    the database in a session of its own each time (the stream holds no connection between reads);
    None when the row is gone."""

    def __init__(self, kind: JobKind, ids: dict[str, int]) -> None:
        self._kind, self._ids = kind, ids

    async def snapshot(self) -> dict[str, Any] | None:
        async with _sessions()() as session:
            try:
                row = await job_or_404(session, self._kind, self._ids)
            except HTTPException:  # the 404 of a row deleted since the request began
                return None
            # progress is a typed stored value (db.ModelJSON), a plain dict or none (a capture check)
            return {"status": str(row.status), "progress": to_jsonable_python(getattr(row, "progress", None))}

    async def status(self) -> str | None:
        found = await self.snapshot()
        return None if found is None else found["status"]


async def _job_events(
    kind: str, job_id: int, resume_from: str | None, final: Collection[str], job: _Job
) -> AsyncIterator[dict[str, Any]]:
    """A job's events (the module docstring): snapshot {status, progress}, then its stream's tail."""
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
