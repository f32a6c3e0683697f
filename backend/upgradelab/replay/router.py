"""/api/replays: start a replay run, follow it, read and export its report."""

import csv
import io
import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, status
from fastapi.responses import Response

from upgradelab.db import SessionDep
from upgradelab.replay import service
from upgradelab.replay.schemas import ReplayCreate, ReplayRead, ReplayReport, TimeRatio

router = APIRouter(prefix="/api/replays", tags=["replay"])


@router.post("", response_model=ReplayRead, status_code=status.HTTP_201_CREATED)
async def create_replay(spec: ReplayCreate, session: SessionDep) -> ReplayRead:
    """Queue a replay (`rounds` interleaved rounds, default 10; `repeats` is its older name). 404 for an
    unknown dataset; 422 naming `variants` (unknown target or preset, or two variants on one existing
    server), `allow_writes` (a target that is not disposable) or `queries` (nothing to replay)."""
    return await service.to_read(session, await service.create(session, spec), with_report=False)


@router.get("", response_model=list[ReplayRead])
async def list_replays(session: SessionDep) -> list[ReplayRead]:
    """The newest 100 replay runs, without their reports."""
    return [await service.to_read(session, r, with_report=False) for r in await service.list_replays(session)]


@router.get("/{replay_id}", response_model=ReplayRead)
async def get_replay(replay_id: int, session: SessionDep) -> ReplayRead:
    """A replay run with its report once succeeded (fingerprints by group, both plans, both errors)."""
    return await service.to_read(session, await service.get_or_raise(session, replay_id), with_report=True)


def csv_rows(report: ReplayReport) -> list[dict[str, Any]]:
    """One row per fingerprint and variant: group, median seconds, ratio to the baseline with its
    interval and verdict, how many of its statements differ in errors, results, order, plan, and the
    rounds the ratio rests on with its smallest detectable change (a fraction; empty before rounds)."""
    rows = []
    for one in report.fingerprints:
        for variant, median in one.median_s.items():
            diffs = [d for s in one.statements for d in s.diffs if d.variant == variant]
            ratio = one.ratios.get(variant, TimeRatio())
            rows.append(
                {
                    "fingerprint_id": one.fingerprint_id,
                    "fingerprint": one.fingerprint,
                    "group": one.group,
                    "variant": variant,
                    "median_s": median,
                    "ratio": ratio.ratio,
                    "ratio_low": ratio.low,
                    "ratio_high": ratio.high,
                    "verdict": ratio.verdict,
                    "error_diffs": sum(d.error for d in diffs),
                    "result_diffs": sum(d.result for d in diffs),
                    "ordering_only": sum(d.ordering_only for d in diffs),
                    "plan_changes": sum(d.plan for d in diffs),
                    "rounds": ratio.rounds,
                    "mde": ratio.mde,
                }
            )
    return rows


@router.get("/{replay_id}/export")
async def export_replay(
    replay_id: int, session: SessionDep, format: Annotated[Literal["csv", "json"], Query()] = "json"
) -> Response:
    """The report as a download: JSON (the whole report) or CSV (csv_rows); 409 before it succeeded."""
    replay = await service.get_or_raise(session, replay_id)
    if replay.report is None:
        return Response(f"replay {replay_id} has no report ({replay.status})", status.HTTP_409_CONFLICT)
    filename = f"replay-{replay_id}.{format}"
    headers = {"content-disposition": f'attachment; filename="{filename}"'}
    if format == "json":
        return Response(json.dumps(replay.report, indent=1), media_type="application/json", headers=headers)
    rows = csv_rows(ReplayReport.model_validate(replay.report))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["fingerprint_id"])
    writer.writeheader()
    writer.writerows(rows)
    return Response(out.getvalue(), media_type="text/csv", headers=headers)
