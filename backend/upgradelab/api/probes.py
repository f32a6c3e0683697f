"""/api/runs/{run_id}/probes"""

from typing import Annotated

from fastapi import APIRouter, Query

from upgradelab.db import SessionDep
from upgradelab.probes import service
from upgradelab.probes.schemas import RunProbes
from upgradelab.runs import service as runs

router = APIRouter(prefix="/api/runs", tags=["probes"])


@router.get("/{run_id}/probes", response_model=RunProbes)
async def run_probes(
    run_id: int,
    session: SessionDep,
    top: Annotated[int, Query(ge=1, le=100)] = 10,
    width: Annotated[
        int | None,
        Query(ge=50, le=20_000, description="The chart's width in pixels: iterations downsampled to it."),
    ] = None,
) -> RunProbes:
    """Per variant and iteration: buffer pool hit rate (1 - reads/read_requests, null with no read
    requests), read requests, reads, pages and bytes read (Innodb_data_read), server-side seconds
    (the workload thread's statement SUM_TIMER_WAIT / 1e12) beside client-side seconds (perf_counter);
    the `top` InnoDB mutex instruments by wait_ms (SUM_TIMER_WAIT / 1e9) with wait counts; and the
    probes the variant's server could not give, with the reason. With `width`, each variant's iterations
    are downsampled to about `width` points per drawn metric (hit rate, server and client seconds;
    LTTB, spikes kept) and `iterations_total` counts them all. 404 for an unknown run.
    """
    run = await runs.get_or_raise(session, run_id)
    return await service.run_probes(session, run, top, width)
