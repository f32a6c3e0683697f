"""Record one iteration as it ends: its `iteration` row, its statements (samples) and what the registered
iteration hooks add (probes: its probe deltas; results/store/hooks.py), committed together, then
published to the run's stream (after the commit, see streaming/publisher).

The worker's only writer of results: the run loop hands each finished iteration here.
"""

import logging
from collections.abc import Mapping, Sequence

from upgradelab.db import sync_session, utcnow
from upgradelab.results.store.hooks import IterationEnd, Place, iteration_ended
from upgradelab.results.store.models import Iteration, Sample
from upgradelab.streaming.publisher import publish_iteration
from upgradelab.workloads.base import StatementTiming

log = logging.getLogger(__name__)


def summed_metrics(timings: list[StatementTiming]) -> dict[str, float] | None:
    """The statements' numeric metrics summed by name (sysbench tps, qps, p95_ms ...); None when none."""
    totals: dict[str, float] = {}
    for timing in timings:
        for name, value in (timing.metrics or {}).items():
            if isinstance(value, int | float):
                totals[name] = totals.get(name, 0.0) + float(value)
    return totals or None


def ingest_iteration(
    place: Place, timings: list[StatementTiming], attached: Mapping[str, Sequence[object]] | None = None
) -> float:
    """Store and publish one iteration; returns its elapsed_s (seconds, the sum of its statements'
    client-side perf_counter times). attached: what the run loop measured beside it, by name, for the
    iteration hooks (results/store/hooks.py; "probes": the probe deltas)."""
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
        iteration_ended(session, IterationEnd(place, elapsed_s, attached or {}))
        session.commit()
    # One line per stored iteration: the fault tests compare these with the stored rows.
    log.info(
        "iteration stored: run=%s variant=%s iteration=%s", place.run_id, place.variant_index, place.iteration
    )
    publish_iteration(
        place.run_id, place.variant_index, place.variant, place.iteration, elapsed_s, round_number=place.round
    )
    return elapsed_s
