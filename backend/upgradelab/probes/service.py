"""Probe verbs: record (worker, sync) and per-variant views (API, async)."""

from collections import defaultdict

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from upgradelab.db import sync_session
from upgradelab.probes.base import Measurement
from upgradelab.probes.models import ProbeSample, ProbeUnavailableRecord
from upgradelab.probes.schemas import MutexWait, RunProbes, UnavailableProbe, VariantProbes
from upgradelab.probes.series import ProbeColumns, probe_columns
from upgradelab.results.stats.downsample import kept_indices
from upgradelab.runs.models import Run

_DRAWN = ("hit_rate", "server_s", "client_s")  # the probe charts' lines (HitRateChart, ServerClientTimeChart)


def record_unavailable(
    session: Session, run_id: int, variant_index: int, unavailable: dict[str, str]
) -> None:
    """Add one probe_unavailable row per probe name -> reason (caller commits)."""
    session.add_all(
        ProbeUnavailableRecord(run_id=run_id, variant_index=variant_index, probe=probe, reason=reason)
        for probe, reason in unavailable.items()
    )


def store_unavailable(run_id: int, variant_index: int, unavailable: dict[str, str]) -> None:
    """Store, once per variant, the probes its server cannot give (probe name -> reason); commits."""
    with sync_session() as session:
        record_unavailable(session, run_id, variant_index, unavailable)
        session.commit()


def record_iteration(
    session: Session, run_id: int, variant_index: int, iteration: int, measurements: list[Measurement]
) -> None:
    """Add one probe_sample row per measurement of an iteration (caller commits)."""
    session.add_all(
        ProbeSample(
            run_id=run_id,
            variant_index=variant_index,
            iteration=iteration,
            probe=m.probe,
            metric=m.metric,
            subject=m.subject,
            value=m.value,
        )
        for m in measurements
    )


async def run_probes(session: AsyncSession, run: Run, top: int = 10, width: int | None = None) -> RunProbes:
    """Per variant (experiment order): per-iteration buffer pool and statement-time values beside the
    client-side seconds, the `top` mutex instruments by summed wait_ms, and the unavailable probes.
    With `width` (the chart's pixels), a variant's iterations are cut to the union of what LTTB keeps
    of its hit rate, server seconds and client seconds at `width` points each (spikes kept);
    `iterations_total` says how many there were."""
    variants = [
        VariantProbes(variant=v.name, variant_index=i, unavailable=[], iterations=[], top_mutex_waits=[])
        for i, v in enumerate(run.experiment.variants)
    ]
    for one, columns in zip(variants, await probe_columns(session, run), strict=True):
        one.iterations_total = len(columns)
        one.iterations = columns.points(_kept(columns, width) if width is not None else range(len(columns)))

    mutex: dict[tuple[int, str], dict[str, float]] = defaultdict(lambda: {"count": 0.0, "wait_ms": 0.0})
    waits = await session.execute(
        select(
            ProbeSample.variant_index, ProbeSample.subject, ProbeSample.metric, func.sum(ProbeSample.value)
        )
        .where(ProbeSample.run_id == run.id, ProbeSample.probe == "mutex_waits")
        .group_by(ProbeSample.variant_index, ProbeSample.subject, ProbeSample.metric)
    )
    for variant_index, subject, metric, total in waits.tuples():
        mutex[(variant_index, subject)][metric] = float(total or 0)
    for (variant_index, subject), sums in mutex.items():
        if variant_index < len(variants):
            variants[variant_index].top_mutex_waits.append(MutexWait(event_name=subject, **sums))
    for one in variants:
        one.top_mutex_waits = sorted(one.top_mutex_waits, key=lambda w: (-w.wait_ms, w.event_name))[:top]

    missing = await session.scalars(
        select(ProbeUnavailableRecord).where(ProbeUnavailableRecord.run_id == run.id)
    )
    for record in missing:
        if record.variant_index < len(variants):
            variants[record.variant_index].unavailable.append(
                UnavailableProbe(probe=record.probe, reason=record.reason)
            )
    return RunProbes(run_id=run.id, status=run.status, variants=variants)


def _kept(columns: ProbeColumns, width: int) -> list[int] | range:
    """Indexes of `columns` that LTTB keeps of each drawn metric at `width` points, united and in order."""
    if len(columns) <= width:
        return range(len(columns))
    kept: set[int] = {0, len(columns) - 1}
    x = columns.iterations.astype(np.float64)
    for metric in _DRAWN:
        present = np.flatnonzero(~np.isnan(columns.values[metric]))
        if present.size == 0:
            continue
        chosen = kept_indices(x[present], columns.values[metric][present], width)
        kept.update(int(present[k]) for k in chosen)
    return sorted(kept)
