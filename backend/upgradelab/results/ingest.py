"""Record one iteration as it ends: its `iteration` row, its statements (samples), its probe deltas,
committed together, then published to the run's stream (after the commit, see streaming/publisher).

The worker's only writer of results: the run loop hands each finished iteration here.
"""

from dataclasses import dataclass

from upgradelab.db import sync_session, utcnow
from upgradelab.probes import service as probe_records
from upgradelab.probes.base import Measurement
from upgradelab.results.models import Iteration, Sample
from upgradelab.streaming.publisher import publish_iteration
from upgradelab.workloads.base import StatementTiming


@dataclass(frozen=True)
class Place:
    """Where an iteration ran: variant, 1-based iteration over the variant, group, round (1-based),
    block (1-based over the run, execution order) and position (0-based place in its round)."""

    run_id: int
    variant_index: int
    variant: str
    iteration: int
    group: str
    round: int
    block: int
    position: int


def summed_metrics(timings: list[StatementTiming]) -> dict[str, float] | None:
    """The statements' numeric metrics summed by name (sysbench tps, qps, p95_ms ...); None when none."""
    totals: dict[str, float] = {}
    for timing in timings:
        for name, value in (timing.metrics or {}).items():
            if isinstance(value, int | float):
                totals[name] = totals.get(name, 0.0) + float(value)
    return totals or None


def ingest_iteration(place: Place, timings: list[StatementTiming], measurements: list[Measurement]) -> float:
    """Store and publish one iteration; returns its elapsed_s (seconds, the sum of its statements'
    client-side perf_counter times)."""
    elapsed_s = float(sum(t.elapsed_s for t in timings))
    with sync_session() as session:
        session.add(
            Iteration(
                run_id=place.run_id,
                variant_index=place.variant_index,
                iteration=place.iteration,
                group=place.group,
                round=place.round,
                block=place.block,
                position=place.position,
                elapsed_s=elapsed_s,
                metrics=summed_metrics(timings),
                ended_at=utcnow(),
            )
        )
        session.add_all(
            Sample(
                run_id=place.run_id,
                variant_index=place.variant_index,
                variant=place.variant,
                iteration=place.iteration,
                statement=timing.statement[:200],
                elapsed_s=timing.elapsed_s,
                label=place.group,
                metrics=timing.metrics or None,
            )
            for timing in timings
        )
        probe_records.record_iteration(
            session, place.run_id, place.variant_index, place.iteration, measurements
        )
        session.commit()
    publish_iteration(
        place.run_id, place.variant_index, place.variant, place.iteration, elapsed_s, round_number=place.round
    )
    return elapsed_s


def record_unavailable(run_id: int, variant_index: int, unavailable: dict[str, str]) -> None:
    """Store, once per variant, the probes its server cannot give (probe name -> reason)."""
    with sync_session() as session:
        probe_records.record_unavailable(session, run_id, variant_index, unavailable)
        session.commit()
