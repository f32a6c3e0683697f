"""/api/replays: start a replay run, follow it, cancel it, read and export its report."""

import csv
import io
import json
from typing import Any

from fastapi import APIRouter, status
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.api.job_routes import Format, cancel_route, export_route, get_route, list_route
from upgradelab.db import SessionDep
from upgradelab.fixsearch import service as fix_searches
from upgradelab.measurement import work_columns
from upgradelab.replay import service
from upgradelab.replay.groups import ReplayGroups
from upgradelab.replay.jobs import REPLAY_JOBS
from upgradelab.replay.models import ReplayRun
from upgradelab.replay.report import (
    ChangeCause,
    FingerprintResult,
    FixSearchBrief,
    ReplayReport,
    VariantFinding,
)
from upgradelab.replay.schemas import ReplayCreate, ReplayRead
from upgradelab.results.stats import verdicts
from upgradelab.users.auth import CurrentUser, stamp_owner
from upgradelab.users.models import User

router = APIRouter(prefix="/api/replays", tags=["replay"])


@router.post("", response_model=ReplayRead, status_code=status.HTTP_201_CREATED)
async def create_replay(spec: ReplayCreate, session: SessionDep, user: CurrentUser) -> ReplayRead:
    """Queue a replay (`rounds` interleaved rounds, default 20; `repeats`, deprecated, is its older
    name). 404 for an unknown dataset; 422 naming `variants` (unknown target or preset, or two
    variants on one existing server), `allow_writes` (a target that is not disposable), `queries`
    (nothing to replay) or `statement_timeout_s` (outside 0.1-3600 s), or an unknown field. The
    replay is the caller's."""
    replay = await service.create(session, spec)
    await stamp_owner(session, replay, user)
    return await service.to_read(session, replay, with_report=False)


@router.get("/groups", response_model=ReplayGroups)
async def replay_groups() -> ReplayGroups:
    """A report's groups in the report's order (the OpenAPI enum ReplayGroup)."""
    return ReplayGroups()


@list_route(router, REPLAY_JOBS, ReplayRead, limit=100)
async def list_replays(session: AsyncSession, replay: ReplayRun, _: User) -> ReplayRead:
    """The newest 100 replay runs, without their reports."""
    return await service.to_read(session, replay, with_report=False)


@get_route(router, REPLAY_JOBS, ReplayRead)
async def get_replay(session: AsyncSession, replay: ReplayRun, _: User) -> ReplayRead:
    """A replay run with its report once succeeded (fingerprints by group, both plans, both errors;
    partial after a cancel); each fingerprint's row with its fix searches (id, status, outcome, remedy)."""
    read = await service.to_read(session, replay, with_report=True)
    if read.report is not None:
        found = await fix_searches.briefs(session, replay.id, FixSearchBrief)
        for row in read.report.fingerprints:
            row.fix_searches = found.get(row.fingerprint_id, [])
    return read


@cancel_route(router, REPLAY_JOBS, ReplayRead)
async def cancel_replay(session: AsyncSession, replay: ReplayRun) -> ReplayRead:
    """Cancel a replay (operator): a queued one at once, a running one within seconds (the statement
    running killed, its servers stopped, its locks freed, what it measured kept as a partial report).
    The replay as read right after: `cancelled`, or still `running` until its worker has stopped it.
    404 for an unknown id; 403 unless the caller started it or is an admin; 409 when it already ended."""
    return await service.to_read(session, replay, with_report=False)


def _cause(one: FingerprintResult, variant: str) -> ChangeCause | None:
    finding = one.variants.get(variant)
    return finding.cause if finding is not None else None


def csv_rows(report: ReplayReport) -> list[dict[str, Any]]:
    """One row per fingerprint and variant: its pt-query-digest class ID (`class_id`; empty in
    reports from before issue 47), group, median seconds, ratio to the baseline with its
    interval, rounds, method, smallest detectable change (a fraction), verdict and reason (the one flat
    spelling, results/stats/verdicts.py `columns`; empty without an interval), how many of its
    statements differ in errors, results, order, plan,
    and how many of its statements timed out (when captured or in a timed run) and were refused as
    writes on that variant. `partial`: the replay was cancelled (the report holds what it measured).
    `group`: the fingerprint's group on that variant against the baseline (the fingerprint's own on
    the baseline's row; reports from before per-variant groups: the fingerprint's); `causes`: the
    known causes of its breaks there; `clock`: the clock its ratio was read on; `per_statement_cost_only`
    and `net_ratio` / `net_verdict`: its verdict net of the per-statement cost (measurement/statement_cost.py;
    empty on the baseline's row and in reports from before); `cause_kind` / `cause`: why it changed
    there (change_causes.py; empty when it gets none); `work_<counter>`: its work counters' means per
    execution (counters.py `columns`; empty without counters); `findings`: every finding there
    (report.FingerprintFinding kinds, "; "-joined, most severe first: a regression inside a break reads
    "breaks; slower"), `time_finding` / `time_cause_kind` / `time_cause`: its time finding and that
    finding's own cause (empty without one); `stages_moved`: the stages that moved with it
    (replay/stages.py, their texts "; "-joined) and `stage_times`: its time by stage per execution in
    seconds as a JSON object (empty without stage events)."""
    rows = []
    for one in report.fingerprints:
        for variant, median in one.median_s.items():
            diffs = [d for s in one.statements for d in s.diffs if d.variant == variant]
            ratio = one.ratios.get(variant)
            rows.append(
                {
                    "fingerprint_id": one.fingerprint_id,
                    "class_id": one.class_id or "",
                    "fingerprint": one.fingerprint,
                    "group": one.variants[variant].group if variant in one.variants else one.group,
                    "variant": variant,
                    "median_s": median,
                    **verdicts.columns(ratio),
                    "error_diffs": sum(d.error for d in diffs),
                    "result_diffs": sum(d.result for d in diffs),
                    "ordering_only": sum(d.ordering_only for d in diffs),
                    "plan_changes": sum(d.plan for d in diffs),
                    "timed_out": sum(
                        s.outcomes[variant].kind == "timed out" or s.timed_out_runs.get(variant, 0) > 0
                        for s in one.statements
                    ),
                    "refused": sum(s.outcomes[variant].kind == "refused" for s in one.statements),
                    "partial": report.partial,
                    "causes": "; ".join(c.title for c in one.variants[variant].causes)
                    if variant in one.variants
                    else "",
                    **_net_columns(one.variants.get(variant)),
                    "cause_kind": cause.kind if (cause := _cause(one, variant)) else "",
                    "cause": cause.text if cause else "",
                    **work_columns(one.work.get(variant)),
                    **_finding_columns(one, variant),
                }
            )
    return rows


def _finding_columns(one: FingerprintResult, variant: str) -> dict[str, Any]:
    """A fingerprint's findings on a variant, its time finding's cause and its stages (csv_rows)."""
    finding = one.variants.get(variant)
    found = finding.findings if finding else []
    time = next((f for f in found if f.kind not in ("breaks", "plan changed")), None)
    stages = one.stages.get(variant)
    return {
        "findings": "; ".join(f.kind for f in found),
        "time_finding": time.kind if time else "",
        "time_cause_kind": time.cause.kind if time and time.cause else "",
        "time_cause": time.cause.text if time and time.cause else "",
        "stages_moved": "; ".join(c.text for c in finding.stages if c.moved) if finding else "",
        "stage_times": json.dumps(stages.stages) if stages else "",
    }


def _net_columns(finding: VariantFinding | None) -> dict[str, Any]:
    """The clock and the verdict net of the per-statement cost of a fingerprint on a variant (empty:
    the baseline, or a report from before)."""
    net = finding.net if finding else None
    return {
        "clock": finding.clock if finding else None,
        "per_statement_cost_only": finding.per_statement_cost_only if finding else None,
        "net_ratio": net.ratio if net else None,
        "net_verdict": net.verdict if net else None,
    }


@export_route(router, REPLAY_JOBS, "replay")
async def export_replay(
    _: AsyncSession, replay: ReplayRun, format: Format, __: User | None
) -> str | Response:
    """The report as a download: JSON (the whole report) or CSV (csv_rows); 409 before there is one
    (a cancelled replay's partial report downloads)."""
    if replay.report is None:
        return Response(f"replay {replay.id} has no report ({replay.status})", status.HTTP_409_CONFLICT)
    if format == "json":
        return json.dumps(replay.report.model_dump(mode="json"), indent=1)
    rows = csv_rows(replay.report)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["fingerprint_id"])
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
