"""/api/runs/{run_id}/results"""

from fastapi import APIRouter

from upgradelab.db import SessionDep
from upgradelab.results import groups, service
from upgradelab.results.groups import RunGroups
from upgradelab.results.schemas import RunResults, StatementRow
from upgradelab.runs import service as runs

router = APIRouter(prefix="/api/runs", tags=["results"])


@router.get("/{run_id}/results", response_model=RunResults)
async def run_results(run_id: int, session: SessionDep) -> RunResults:
    """The run, its per-iteration series per variant and the summary; 404 for an unknown run.

    Times are seconds, client-side (perf_counter around each statement), summed per iteration.
    """
    run = await runs.get_or_raise(session, run_id)
    series = await service.iteration_series(session, run)
    [read] = await runs.to_read(session, [run])
    return RunResults(run=read, series=series, summary=service.summarize(series))


@router.get("/{run_id}/statements", response_model=list[StatementRow])
async def run_statements(run_id: int, session: SessionDep) -> list[StatementRow]:
    """Per variant and statement (e.g. "TRUNCATE test3"): count, median/p95/total seconds; 404 unknown run."""
    return await service.statement_summary(session, await runs.get_or_raise(session, run_id))


@router.get("/{run_id}/groups", response_model=RunGroups)
async def run_groups(run_id: int, session: SessionDep) -> RunGroups:
    """Every iteration with its group (e.g. "threads=16") and metrics (sysbench tps, qps, p50_ms,
    p95_ms, p99_ms; lock-waits thread_<n>_s, mutex_<name>_ms), and the per-variant, per-group medians
    the sweep charts draw; 404 for an unknown run."""
    run = await runs.get_or_raise(session, run_id)
    return await groups.run_groups(session, run)
