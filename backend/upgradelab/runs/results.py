"""A run's results page as one response (GET /api/runs/{id}/results and a shared run's view,
api/sharing.py): the run, its downsampled series, the summary of the full series and the template's
contrasts. A service, so the two routers call it instead of one router importing the other."""

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.results.views import series
from upgradelab.results.views.contrasts import RunContrasts, run_contrasts
from upgradelab.results.views.schemas import ColumnSeries, SummaryRow
from upgradelab.runs import service as runs
from upgradelab.runs.models import Run
from upgradelab.runs.schemas import RunRead


class RunResults(BaseModel):
    """What the run page draws: the series (downsampled), the summary of every iteration and the
    template's contrasts (results/views/contrasts.py; empty lists for a template without any)."""

    run: RunRead
    series: list[ColumnSeries]
    summary: list[SummaryRow]
    contrasts: RunContrasts


async def results_of(session: AsyncSession, run: Run, max_points: int) -> RunResults:
    """The run, its series (downsampled to max_points per variant) and the summary of the full series
    (results/views/series.py); also a shared run's view (api/sharing.py)."""
    columns = await series.iteration_columns(session, run)
    [read] = await runs.to_read(session, [run])
    run_id = run.id
    found = await session.run_sync(lambda sync: run_contrasts(sync, sync.get_one(Run, run_id)))
    return RunResults(
        run=read,
        series=series.series_of(run, columns, max_points),
        summary=series.summarize_columns(run, columns),
        contrasts=found,
    )
