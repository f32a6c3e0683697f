"""A variant's per-iteration probe values as columns (buffer pool, statement time, client seconds; the
fields of ProbeIteration): read from the probe_sample and iteration rows while a run goes, packed once per
variant at run end (probe_series, beside the verdict table) so opening a finished run of 10,000 iterations
x 8 variants reads 8 rows instead of every probe value (bench/open_large_run.py).
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from sqlalchemy import Select, delete, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from upgradelab.probes.models import ProbeSample, ProbeSeries
from upgradelab.probes.schemas import ProbeIteration
from upgradelab.results.store.models import Iteration
from upgradelab.results.store.series_store import Columns
from upgradelab.runs.models import Run

# the per-iteration values, in ProbeIteration's order; each comes from one (probe, metric) of probe_sample
# but client_s, the iteration's own seconds (iteration.elapsed_s)
NAMES = tuple(name for name in ProbeIteration.model_fields if name != "iteration")
_SAMPLED = {
    ("buffer_pool", "hit_rate"),
    ("buffer_pool", "read_requests"),
    ("buffer_pool", "reads"),
    ("buffer_pool", "pages_read"),
    ("buffer_pool", "bytes_read"),
    ("statement_time", "server_s"),
    ("statement_time", "statements"),
}
_ITERATIONS = np.dtype("<i4")
_VALUES = np.dtype("<f8")


@dataclass
class ProbeColumns:
    """One variant's iterations ascending and, per name of NAMES, its values (NaN: absent)."""

    iterations: npt.NDArray[np.int64]
    values: dict[str, npt.NDArray[np.float64]]

    def __len__(self) -> int:
        return len(self.iterations)

    def points(self, kept: Iterable[int]) -> list[ProbeIteration]:
        """The iterations at the indexes `kept` (ascending) as ProbeIteration, absent values None."""
        index = np.fromiter(kept, dtype=np.int64)
        numbers = self.iterations[index].tolist()
        columns = {name: self.values[name][index].tolist() for name in NAMES}
        return [
            ProbeIteration(
                iteration=number,
                **{name: value for name, values in columns.items() if (value := values[k]) == value},
            )
            for k, number in enumerate(numbers)
        ]


async def probe_columns(session: AsyncSession, run: Run) -> list[ProbeColumns]:
    """Per variant (experiment order): its probe columns, packed at run end for a finished run (from the
    rows when it has none: finished before migration 0015), else from its rows."""
    variants = len(run.experiment.variants)
    if run.status.is_final:
        stored = (
            await session.scalars(
                select(ProbeSeries).where(ProbeSeries.run_id == run.id).order_by(ProbeSeries.variant_index)
            )
        ).all()
        if len(stored) == variants:
            return [_unpack(row) for row in stored]
    client = await session.execute(_client_seconds(run.id))
    samples = await session.execute(_samples(run.id))
    return _collect(variants, client, samples)


def store_probe_series_in(session: Session, run: Run, client: list[Columns]) -> None:
    """(Re)write the run's packed probe columns from its probe rows and `client`, the iteration series
    results/store/series_store.store_series_in just packed (client_s); one row per variant (also those with no
    iteration); the caller commits (results/store/summary.store_summary_in, at run end)."""
    seconds = (
        (variant_index, iteration, elapsed_s)
        for variant_index, (iterations, elapsed) in enumerate(client)
        for iteration, elapsed_s in zip(iterations, elapsed, strict=True)
    )
    columns = _collect(len(run.experiment.variants), seconds, session.execute(_samples(run.id)))
    session.execute(delete(ProbeSeries).where(ProbeSeries.run_id == run.id))
    for index, one in enumerate(columns):
        session.add(
            ProbeSeries(
                run_id=run.id,
                variant_index=index,
                count=len(one),
                columns=list(NAMES),
                iterations=one.iterations.astype(_ITERATIONS).tobytes(),
                values=np.stack([one.values[name] for name in NAMES]).astype(_VALUES).tobytes()
                if len(one)
                else b"",
            )
        )


def _unpack(row: ProbeSeries) -> ProbeColumns:
    iterations = np.frombuffer(row.iterations, dtype=_ITERATIONS, count=row.count).astype(np.int64)
    matrix = np.frombuffer(row.values, dtype=_VALUES, count=row.count * len(row.columns))
    matrix = matrix.reshape(len(row.columns), row.count)
    stored = {name: matrix[k] for k, name in enumerate(row.columns)}
    empty = np.full(row.count, np.nan)
    return ProbeColumns(iterations, {name: stored.get(name, empty) for name in NAMES})


def _client_seconds(run_id: int) -> Select[int, int, float]:
    return select(Iteration.variant_index, Iteration.iteration, Iteration.elapsed_s).where(
        Iteration.run_id == run_id
    )


def _samples(run_id: int) -> Select[int, int, str, str, float | None]:
    return select(
        ProbeSample.variant_index,
        ProbeSample.iteration,
        ProbeSample.probe,
        ProbeSample.metric,
        ProbeSample.value,
    ).where(ProbeSample.run_id == run_id, ProbeSample.subject == "")


def _collect(
    variants: int,
    client: Iterable[tuple[int, int, float]],
    samples: Iterable[tuple[int, int, str, str, float | None]],
) -> list[ProbeColumns]:
    # plain dicts first: a long run has 80,000 iterations and several values each
    values: dict[tuple[int, int], dict[str, float]] = defaultdict(dict)
    for variant_index, iteration, seconds in client:
        values[(variant_index, iteration)]["client_s"] = float(seconds)
    for variant_index, iteration, probe, metric, value in samples:
        if (probe, metric) in _SAMPLED and value is not None:
            values[(variant_index, iteration)][metric] = value
    per_variant: list[list[tuple[int, dict[str, float]]]] = [[] for _ in range(variants)]
    for (variant_index, iteration), point in sorted(values.items()):
        if variant_index < variants:
            per_variant[variant_index].append((iteration, point))
    return [
        ProbeColumns(
            np.array([iteration for iteration, _ in points], dtype=np.int64),
            {
                name: np.array([point.get(name, np.nan) for _, point in points], dtype=np.float64)
                for name in NAMES
            },
        )
        for points in per_variant
    ]
