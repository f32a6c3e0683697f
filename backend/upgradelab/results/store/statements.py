"""The statement table of a run: per variant and statement label ("TRUNCATE test3"), how many times it ran
and its median, p95 and total seconds, from the sample table; a finished run's is computed once at run
end (results/store/digests.py)."""

from collections.abc import Iterable

from pydantic import TypeAdapter
from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from upgradelab.results.stats.statistics import median, percentile
from upgradelab.results.store import digests
from upgradelab.results.store.digests import DigestName
from upgradelab.results.store.models import Sample, StatementRow
from upgradelab.runs.models import Run

_ROWS = TypeAdapter(list[StatementRow])


async def statement_summary(session: AsyncSession, run: Run) -> list[StatementRow]:
    """Per variant, per statement label (in first-execution order): count, median, p95, total seconds.

    Source: sample.elapsed_s, client-side perf_counter around each statement; a finished run's table as
    stored at its end, or computed from its samples when it has none (finished before migration 0015).
    """
    if run.status.is_final:
        stored = await digests.get(session, run.id, DigestName.STATEMENTS, _ROWS)
        if stored is not None:
            return stored
    samples = await session.execute(_samples(run.id))
    return _rows(run, samples)


def store_statements_in(session: Session, run: Run) -> None:
    """Compute the run's statement table from its samples and store it (run end); the caller commits."""
    digests.put_in(session, run.id, DigestName.STATEMENTS, _rows(run, session.execute(_samples(run.id))))


def _samples(run_id: int) -> Select[int, str, float]:
    return (
        select(Sample.variant_index, Sample.statement, Sample.elapsed_s)
        .where(Sample.run_id == run_id)
        .order_by(Sample.variant_index, Sample.id)
    )


def _rows(run: Run, samples: Iterable[tuple[int, str, float]]) -> list[StatementRow]:
    grouped: dict[tuple[int, str], list[float]] = {}
    for variant_index, statement, elapsed_s in samples:
        grouped.setdefault((variant_index, statement), []).append(elapsed_s)
    names = [variant.name for variant in run.experiment.variants]
    return [
        StatementRow(
            variant=names[variant_index],
            variant_index=variant_index,
            statement=statement,
            count=len(times),
            median_s=median(times),
            p95_s=percentile(times, 0.95),
            total_s=sum(times),
        )
        for (variant_index, statement), times in grouped.items()
    ]
