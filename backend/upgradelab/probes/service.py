"""Probe verbs: record (worker, sync) and per-variant views (API, async)."""

from collections import defaultdict

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from upgradelab.probes.base import Measurement
from upgradelab.probes.models import ProbeSample, ProbeUnavailableRecord
from upgradelab.probes.schemas import MutexWait, ProbeIteration, RunProbes, UnavailableProbe, VariantProbes
from upgradelab.results.downsample import kept_indices
from upgradelab.results.models import Iteration
from upgradelab.runs.models import Run

_DRAWN = ("hit_rate", "server_s", "client_s")  # the probe charts' lines (HitRateChart, ServerClientTimeChart)
_ITERATION_METRICS = {
    ("buffer_pool", "hit_rate"),
    ("buffer_pool", "read_requests"),
    ("buffer_pool", "reads"),
    ("buffer_pool", "pages_read"),
    ("buffer_pool", "bytes_read"),
    ("statement_time", "server_s"),
    ("statement_time", "statements"),
}


def record_unavailable(
    session: Session, run_id: int, variant_index: int, unavailable: dict[str, str]
) -> None:
    """Add one probe_unavailable row per probe name -> reason (caller commits)."""
    session.add_all(
        ProbeUnavailableRecord(run_id=run_id, variant_index=variant_index, probe=probe, reason=reason)
        for probe, reason in unavailable.items()
    )


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
        VariantProbes(variant=v["name"], variant_index=i, unavailable=[], iterations=[], top_mutex_waits=[])
        for i, v in enumerate(run.experiment.variants)
    ]
    # plain dicts first: a long run has 80,000 of them, and only the kept ones become models
    values: dict[tuple[int, int], dict[str, float]] = defaultdict(dict)
    client = await session.execute(
        select(Iteration.variant_index, Iteration.iteration, Iteration.elapsed_s).where(
            Iteration.run_id == run.id
        )
    )
    for variant_index, iteration, seconds in client.tuples():
        values[(variant_index, iteration)]["client_s"] = float(seconds)
    samples = await session.execute(
        select(
            ProbeSample.variant_index,
            ProbeSample.iteration,
            ProbeSample.probe,
            ProbeSample.metric,
            ProbeSample.value,
        ).where(ProbeSample.run_id == run.id, ProbeSample.subject == "")
    )
    for variant_index, iteration, probe, metric, value in samples.tuples():
        if (probe, metric) in _ITERATION_METRICS and value is not None:
            values[(variant_index, iteration)][metric] = value
    per_variant: list[list[tuple[int, dict[str, float]]]] = [[] for _ in variants]
    for (variant_index, iteration), point in sorted(values.items()):
        if variant_index < len(variants):
            per_variant[variant_index].append((iteration, point))
    for one, points in zip(variants, per_variant, strict=True):
        one.iterations_total = len(points)
        kept = _kept(points, width) if width is not None else range(len(points))
        one.iterations = [
            ProbeIteration.model_validate({"iteration": points[k][0], **points[k][1]}) for k in kept
        ]

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


def _kept(points: list[tuple[int, dict[str, float]]], width: int) -> list[int] | range:
    """Indexes of `points` that LTTB keeps of each drawn metric at `width` points, united and in order."""
    if len(points) <= width:
        return range(len(points))
    kept: set[int] = {0, len(points) - 1}
    for metric in _DRAWN:
        present = [k for k, (_, point) in enumerate(points) if metric in point]
        if not present:
            continue
        x = [points[k][0] for k in present]
        y = [points[k][1][metric] for k in present]
        kept.update(present[k] for k in kept_indices(x, y, width))
    return sorted(kept)
