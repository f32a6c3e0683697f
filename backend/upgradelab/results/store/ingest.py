"""Record iterations as they end: each one's `iteration` row, its statements (samples) and what the
registered iteration hooks add (probes: its probe deltas; results/store/hooks.py), committed together,
then published to the run's stream (after the commit, see streaming/publisher).

The worker's only writer of results: the run loop hands each finished iteration to an
`IterationWriter`, whose thread stores them in batches off the timed loop (one session and one commit
per batch instead of one per iteration: 13.9 ms per iteration on this machine, bench/loop_overhead.py).
"""

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType

from sqlalchemy.orm import Session

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
    return store_iterations([Finished(place, timings, attached or {})])[0]


@dataclass(frozen=True)
class Finished:
    """One finished iteration handed to the store: where it ran, its statements' timings and what the
    run loop measured beside it, by name, for the iteration hooks ("probes": the probe deltas)."""

    place: Place
    timings: list[StatementTiming]
    attached: Mapping[str, Sequence[object]]
    ended_at: datetime = field(default_factory=utcnow)  # when it ended, not when its batch was stored


def store_iterations(batch: Sequence[Finished]) -> list[float]:
    """Store `batch` in one session and one commit, then log each iteration, then publish each in order;
    returns each one's elapsed_s (seconds, the sum of its statements' client-side perf_counter times)."""
    if not batch:
        return []
    seconds = [float(sum(t.elapsed_s for t in item.timings)) for item in batch]
    with sync_session() as session:
        for item, elapsed_s in zip(batch, seconds, strict=True):
            _add(session, item, elapsed_s)
        session.commit()
    for item in batch:
        # One line per stored iteration, all right after the commit (before the stream's round trips):
        # the fault tests compare these with the stored rows.
        log.info(
            "iteration stored: run=%s variant=%s iteration=%s",
            item.place.run_id,
            item.place.variant_index,
            item.place.iteration,
        )
    for item, elapsed_s in zip(batch, seconds, strict=True):
        place = item.place
        publish_iteration(
            place.run_id,
            place.variant_index,
            place.variant,
            place.iteration,
            elapsed_s,
            round_number=place.round,
        )
    return seconds


def _add(session: Session, item: Finished, elapsed_s: float) -> None:
    place, timings = item.place, item.timings
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
            ended_at=item.ended_at,
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
    iteration_ended(session, IterationEnd(place, elapsed_s, item.attached))


class IterationWriter:
    """Stores the iterations a run loop hands over (`add`) from a thread of its own, in batches: at
    most `interval_s` (seconds) after an iteration ends it is committed and published, so live charts
    lag by half a second at most and a worker killed mid-block loses at most that much.

    `flush()` returns once everything added so far is stored (before a decision that reads the stored
    iterations, such as auto-extension); leaving the `with` block flushes and stops the thread
    (`discard()` first drops what is not stored yet: a run whose lease was lost writes nothing more).
    A storing error is raised in the run loop by the next `add`, `flush` or the exit.
    """

    def __init__(self, interval_s: float = 0.5) -> None:
        self._interval_s = interval_s
        self._ready = threading.Condition()
        self._pending: list[Finished] = []
        self._added = self._stored = 0
        self._urgent = self._closing = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._loop, name="iteration-writer", daemon=True)
        self._thread.start()

    def add(
        self, place: Place, timings: list[StatementTiming], attached: Mapping[str, Sequence[object]]
    ) -> None:
        """Hand one finished iteration over (returns at once)."""
        with self._ready:
            self._raise_error()
            self._pending.append(Finished(place, timings, attached))
            self._added += 1
            self._ready.notify_all()

    def flush(self) -> None:
        """Wait until every iteration added so far is stored (or raise the storing error)."""
        with self._ready:
            target = self._added
            self._urgent = True
            self._ready.notify_all()
            self._ready.wait_for(lambda: self._stored >= target or self._error is not None)
            self._raise_error()

    def discard(self) -> None:
        """Drop the iterations not stored yet."""
        with self._ready:
            self._added -= len(self._pending)
            self._pending.clear()

    def __enter__(self) -> "IterationWriter":
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        with self._ready:
            self._closing = True
            self._ready.notify_all()
        self._thread.join()
        if kind is None:
            with self._ready:
                self._raise_error()

    def _raise_error(self) -> None:
        if self._error is not None:
            raise RuntimeError(f"storing iterations failed: {self._error}") from self._error

    def _loop(self) -> None:
        while True:
            with self._ready:
                self._ready.wait_for(lambda: bool(self._pending) or self._closing)
                if not self._pending and self._closing:
                    return
                # wait out the batch interval unless a flush or the end asks for the batch now
                deadline = time.monotonic() + self._interval_s
                self._ready.wait_for(
                    lambda: self._urgent or self._closing, timeout=max(0.0, deadline - time.monotonic())
                )
                batch, self._pending = self._pending, []
                self._urgent = False
            try:
                store_iterations(batch)
            except Exception as error:  # raised in the run loop by the next call
                log.exception("storing %s iterations", len(batch))
                with self._ready:
                    self._error = error
                    self._ready.notify_all()
                return
            with self._ready:
                self._stored += len(batch)
                self._ready.notify_all()
