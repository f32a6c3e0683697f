"""A finished run's iteration series, packed once at run end (iteration_series, beside the verdict table):
opening a run of 10,000 iterations x 8 variants reads 8 rows instead of 80,000 (bench/open_large_run.py).
A run still going, or finished before migration 0014, is read from the iteration table.
"""

import numpy as np
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from upgradelab.results.store.models import Iteration, IterationSeries
from upgradelab.runs.models import Run

Columns = tuple[list[int], list[float]]  # (iteration numbers ascending, seconds per iteration)

_ITERATIONS = np.dtype("<i4")
_SECONDS = np.dtype("<f8")


def pack(variant_index: int, columns: Columns) -> IterationSeries:
    """One variant's columns as an iteration_series row (int32 / float64, little-endian)."""
    iterations, seconds = columns
    return IterationSeries(
        variant_index=variant_index,
        count=len(iterations),
        iterations=np.asarray(iterations, dtype=_ITERATIONS).tobytes(),
        elapsed_s=np.asarray(seconds, dtype=_SECONDS).tobytes(),
    )


def unpack(row: IterationSeries) -> Columns:
    """The columns pack() stored."""
    iterations = np.frombuffer(row.iterations, dtype=_ITERATIONS, count=row.count)
    seconds = np.frombuffer(row.elapsed_s, dtype=_SECONDS, count=row.count)
    return iterations.tolist(), seconds.tolist()


def store_series_in(session: Session, run: Run) -> list[Columns]:
    """(Re)write the run's packed series from its iteration rows, one per variant (also those with none),
    and return them (the probe columns' client seconds, probes/series.py); the caller commits
    (results/store/summary.store_summary_in, at run end)."""
    columns: list[Columns] = [([], []) for _ in run.experiment.variants]
    rows = session.execute(
        select(Iteration.variant_index, Iteration.iteration, Iteration.elapsed_s)
        .where(Iteration.run_id == run.id)
        .order_by(Iteration.variant_index, Iteration.iteration)
    )
    for variant_index, iteration, elapsed_s in rows.tuples():
        columns[variant_index][0].append(iteration)
        columns[variant_index][1].append(float(elapsed_s))
    session.execute(delete(IterationSeries).where(IterationSeries.run_id == run.id))
    for index, one in enumerate(columns):
        row = pack(index, one)
        row.run_id = run.id
        session.add(row)
    return columns


async def stored_columns(session: AsyncSession, run: Run) -> list[Columns] | None:
    """The packed series of every variant in experiment order, or None when the run has none stored
    (still going, or finished before they were kept)."""
    rows = (
        await session.scalars(
            select(IterationSeries)
            .where(IterationSeries.run_id == run.id)
            .order_by(IterationSeries.variant_index)
        )
    ).all()
    if len(rows) != len(run.experiment.variants):
        return None
    return [unpack(row) for row in rows]
